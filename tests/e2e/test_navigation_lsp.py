"""Code navigation answered by the editor, over LSP with the real server
(``python -P -m agentls --stdio``) on tests/fixtures/workspaces/semantic.

A client that declares ``experimental.agentls.navigation`` is asked ``agent/navigate``
first. This one plays an editor whose language server knows what the fixture means (where
``Store.save`` is and each use of it, through the alias of the re-export), so every answer
the model reads comes from it, named; its rename comes back as a WorkspaceEdit that the
server applies as one edit of the run (``workspace/applyEdit``). An editor without a
provider for a file hands it to the tree-sitter symbols; one that fails hands it to the
basedpyright agentls starts itself. The real editors answer the same request in the VS Code
extension's suite and tests/e2e/test_diagnostics_editors.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import VSCODE, AgentClient, LspFactory, llm_options, plain
from lsprotocol import types
from pygls.uris import from_fs_path
from semantic_workspace import path_with_language_servers, semantic_workspace

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(120)

WITH_NAVIGATION = types.ClientCapabilities(
    workspace=VSCODE.workspace,
    window=VSCODE.window,
    experimental={"agentls": {"askUser": True, "navigation": True}},
)


def _range(line: int, start: int, end: int) -> dict[str, Any]:
    """A 0-based LSP range on one line."""
    return {
        "start": {"line": line, "character": start},
        "end": {"line": line, "character": end},
    }


class FakeEditorNavigation:
    """The editor's providers on the semantic fixture: what its language server would say
    of ``Store.save`` (models.py:5), used on app.py:8 through ``Shelf`` and on jobs.py:7;
    ``Cache.save`` (models.py:10, app.py:9) is another symbol. ``no_provider``: the files
    it has none for; ``fail``: answer every question with an error."""

    def __init__(self, client: AgentClient, root: Path) -> None:
        self.root = root
        self.asked: list[dict[str, Any]] = []
        self.no_provider: set[str] = set()
        self.fail = False

        def answer(ls: AgentClient, params: Any) -> dict[str, Any]:
            return self.answer(plain(params))

        client.feature("agent/navigate")(answer)

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel)) or ""

    def answer(self, asked: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(asked)
        if self.fail:
            raise RuntimeError("the provider threw")
        if any(asked["uri"] == self.uri(rel) for rel in self.no_provider):
            return {"answered": False}
        store_save = {"uri": self.uri("models.py"), "range": _range(4, 8, 12)}
        uses = [
            {"uri": self.uri("app.py"), "range": _range(7, 18, 22)},
            {"uri": self.uri("jobs.py"), "range": _range(6, 17, 21)},
        ]
        action = asked["action"]
        out: dict[str, Any] = {"answered": True, "by": "Test Editor"}
        if action == "documentSymbols" and asked["uri"] == self.uri("models.py"):
            out["symbols"] = [
                {"name": "Store", "kind": 5, "uri": asked["uri"], "range": _range(3, 6, 11)},
                {**store_save, "name": "save", "kind": 6, "container": ["Store"]},
                {"name": "Cache", "kind": 5, "uri": asked["uri"], "range": _range(8, 6, 11)},
                {
                    "name": "save",
                    "kind": 6,
                    "uri": asked["uri"],
                    "range": _range(9, 8, 12),
                    "container": ["Cache"],
                },
            ]
        elif action == "definition":
            out["locations"] = [store_save]
        elif action == "references":
            out["locations"] = [store_save, *uses]
        elif action == "hover":
            out["hover"] = "```python\n(method) def save(self: Store, item: str) -> int\n```"
        elif action == "rename":
            out["edit"] = {
                "changes": {
                    loc["uri"]: [{"range": loc["range"], "newText": asked["newName"]}]
                    for loc in [store_save, *uses]
                }
            }
        return out


def tool_texts(scripted: ScriptedModelServer, model: str) -> list[str]:
    last = scripted.requests_for(model)[-1].messages
    return [str(m["content"]) for m in last if m.get("role") == "tool"]


async def test_the_editor_answers_definition_references_hover_and_a_rename(
    lsp: LspFactory, scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    ws = semantic_workspace(tmp_path / "semantic")
    scripted.add(
        "nav-editor",
        tool_call(
            "navigate_code", {"action": "definition", "path": "app.py", "symbol": "save", "line": 8}
        ),
        tool_call(
            "navigate_code", {"action": "references", "path": "models.py", "symbol": "Store.save"}
        ),
        tool_call("navigate_code", {"action": "hover", "path": "jobs.py", "symbol": "save"}),
        tool_call(
            "rename_symbol", {"path": "models.py", "symbol": "Store.save", "new_name": "persist"}
        ),
        text("done"),
    )
    client = await lsp(
        caps=WITH_NAVIGATION, root=ws, init_options=llm_options(scripted, "nav-editor")
    )
    editor = FakeEditorNavigation(client, ws)
    result = plain(await client.run(prompt="rename", runId="nav1", confirmMode="yolo"))
    assert result["status"] == "success", result
    definition, references, hover, renamed = tool_texts(scripted, "nav-editor")
    assert definition == (
        "Definitions of `save` (Test Editor): 1\nmodels.py:5: def save(self, item: str) -> int:"
    )
    assert references == (
        "References to `Store.save` (Test Editor): 3\n"
        'app.py:8: total = shelf.save("book")\n'
        'jobs.py:7: return store.save("backup")\n'
        "models.py:5: def save(self, item: str) -> int:"
    )
    assert "def save(self: Store, item: str) -> int" in hover and hover.endswith("(Test Editor)")
    assert renamed.startswith(
        "Renamed `save` to `persist` (Test Editor): 3 occurrences in 3 files"
    ), renamed
    # The places were the model's names made positions: `save` on app.py:8, and the
    # editor's own outline of models.py for `Store.save`.
    by_action = {(a["action"], a["uri"].rsplit("/", 1)[-1]): a for a in editor.asked}
    assert by_action[("definition", "app.py")]["position"] == {"line": 7, "character": 18}
    assert by_action[("references", "models.py")]["position"] == {"line": 4, "character": 8}
    assert by_action[("rename", "models.py")]["newName"] == "persist"
    # The editor computed the rename and applied nothing: the server's one edit did.
    assert len(client.edits) == 1
    changed = client.edits[0].edit.document_changes
    assert sorted(c.text_document.uri.rsplit("/", 1)[-1] for c in changed) == [
        "app.py",
        "jobs.py",
        "models.py",
    ]
    assert 'total = shelf.persist("book")\n    cache.save("book")' in (ws / "app.py").read_text()
    assert 'return store.persist("backup")' in (ws / "jobs.py").read_text()
    models = (ws / "models.py").read_text()
    assert "def persist(self, item: str) -> int:" in models
    assert "class Cache:\n    def save(self, item: str) -> int:" in models


async def test_a_file_the_editor_has_no_provider_for_is_answered_by_name(
    lsp: LspFactory, scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    ws = semantic_workspace(tmp_path / "semantic")  # not trusted: no language server starts
    scripted.add(
        "nav-none",
        tool_call("navigate_code", {"action": "references", "path": "jobs.py", "symbol": "Store"}),
        tool_call("rename_symbol", {"path": "jobs.py", "symbol": "nightly", "new_name": "daily"}),
        text("done"),
    )
    client = await lsp(
        caps=WITH_NAVIGATION, root=ws, init_options=llm_options(scripted, "nav-none")
    )
    editor = FakeEditorNavigation(client, ws)
    editor.no_provider.add("jobs.py")
    await client.ping_until(lambda pong: pong["watching"], "the index")
    result = plain(await client.run(prompt="look", runId="nav2", confirmMode="yolo"))
    assert result["status"] == "success", result
    references, renamed = tool_texts(scripted, "nav-none")
    header = references.splitlines()[0]
    assert header.startswith("References to `Store` (tree-sitter (textual"), references
    assert "the editor has no references answer for jobs.py" in header, header
    assert "jobs.py:6: def nightly(store: Store) -> int:" in references
    assert "app.py:3: from api import Store as Shelf" in references
    assert renamed.startswith("Not renamed:") and "Nothing was changed" in renamed, renamed
    assert "the editor has no rename answer for jobs.py" in renamed, renamed
    assert "def nightly" in (ws / "jobs.py").read_text()
    assert client.edits == []


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_an_editor_that_fails_hands_the_question_to_basedpyright(
    lsp: LspFactory, scripted: ScriptedModelServer, tmp_path: Path, trust_folder: Any
) -> None:
    ws = semantic_workspace(tmp_path / "semantic")
    trust_folder(ws)
    scripted.add(
        "nav-fails",
        tool_call(
            "navigate_code", {"action": "references", "path": "models.py", "symbol": "Store.save"}
        ),
        text("done"),
    )
    client = await lsp(
        caps=WITH_NAVIGATION,
        root=ws,
        init_options=llm_options(scripted, "nav-fails"),
        env={"PATH": path_with_language_servers()},
    )
    editor = FakeEditorNavigation(client, ws)
    editor.fail = True
    result = plain(await client.run(prompt="look", runId="nav3", confirmMode="yolo"))
    assert result["status"] == "success", result
    (references,) = tool_texts(scripted, "nav-fails")
    header, *found = references.splitlines()
    assert header.startswith("References to `Store.save` (basedpyright; the editor failed"), header
    assert header.endswith("): 3"), header
    assert found == [
        'app.py:8: total = shelf.save("book")',
        'jobs.py:7: return store.save("backup")',
        "models.py:5: def save(self, item: str) -> int:",
    ]
    assert {a["action"] for a in editor.asked} >= {"references"}
