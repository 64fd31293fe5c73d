"""Code navigation through the front ends, with a real basedpyright the front end starts
itself (the pool of the problems after edits) on tests/fixtures/workspaces/semantic:
the language server (``python -P -m agentls --stdio``), ``agentls acp`` and ``agentls run``,
each run by the scripted model: references by meaning, then a rename over three files that
reaches the files through the front end's own way of editing (``workspace/applyEdit``; the
ACP editor's writes; the disk)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import VSCODE, LspFactory, llm_options, plain, run_cli
from semantic_workspace import FIXTURE, path_with_language_servers, semantic_workspace
from test_acp import EditorClient, acp_agent, prompt, start, tool_results

from agentls.agent.config.trust import TrustStore
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

REFERENCES = tool_call(
    "navigate_code", {"action": "references", "path": "models.py", "symbol": "Store.save"}
)
RENAME = tool_call(
    "rename_symbol", {"path": "models.py", "symbol": "Store.save", "new_name": "persist"}
)
FOUND = (
    "References to `Store.save` (basedpyright): 3\n"
    'app.py:8: total = shelf.save("book")\n'
    'jobs.py:7: return store.save("backup")\n'
    "models.py:5: def save(self, item: str) -> int:"
)


def snapshot(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in folder.iterdir() if p.suffix == ".py"}


def renamed(ws: Path) -> None:
    assert 'total = shelf.persist("book")\n    cache.save("book")' in (ws / "app.py").read_text()
    assert 'return store.persist("backup")' in (ws / "jobs.py").read_text()
    models = (ws / "models.py").read_text()
    assert "def persist(self, item: str) -> int:" in models
    assert "class Cache:\n    def save(self, item: str) -> int:" in models


async def test_the_language_server_answers_with_its_own_basedpyright(
    lsp: LspFactory, scripted: ScriptedModelServer, tmp_path: Path, trust_folder: Any
) -> None:
    ws = semantic_workspace(tmp_path / "semantic")  # tmp_path/ws is the fixture's
    trust_folder(ws)
    scripted.add("lsp-semantic", REFERENCES, RENAME, text("done"))
    client = await lsp(
        caps=VSCODE,
        root=ws,
        init_options=llm_options(scripted, "lsp-semantic"),
        env={"PATH": path_with_language_servers()},
    )
    result = plain(await client.run(prompt="rename", runId="sem1", confirmMode="yolo"))
    assert result["status"] == "success", result
    last = scripted.requests_for("lsp-semantic")[-1].messages
    found, done = [str(m["content"]) for m in last if m.get("role") == "tool"]
    assert found == FOUND
    assert done.startswith(
        "Renamed `save` to `persist` (basedpyright): 3 occurrences in 3 files"
    ), done
    # One WorkspaceEdit over the three files: one review in the editor.
    (edit,) = client.edits
    edited = sorted(Path(c.text_document.uri).name for c in edit.edit.document_changes or [])
    assert edited == ["app.py", "jobs.py", "models.py"]
    renamed(ws)


async def test_acp_answers_with_its_own_basedpyright(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = semantic_workspace(tmp_path)
    TrustStore().set_trusted(ws, True)
    scripted.add("acp-semantic", REFERENCES, RENAME, text("done"))
    client = EditorClient()
    env = {"PATH": path_with_language_servers()}
    async with acp_agent(ws, scripted, "acp-semantic", client, "--mode", "yolo", env=env) as conn:
        session_id = await start(conn, ws, fs=True)
        assert await prompt(conn, session_id, "rename") == "end_turn"
    found, done = tool_results(scripted, "acp-semantic")[-2:]
    assert found == FOUND
    assert done.startswith("Renamed `save` to `persist` (basedpyright)"), done
    # The rename reached the files through the editor's writes, one per file.
    assert sorted(Path(path).name for path, _ in client.writes) == [
        "app.py",
        "jobs.py",
        "models.py",
    ]
    renamed(ws)


def test_the_cli_answers_with_its_own_basedpyright(
    tmp_path: Path,
    scripted: ScriptedModelServer,
    trust_folder: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws = semantic_workspace(tmp_path)
    trust_folder(ws)
    monkeypatch.setenv("PATH", path_with_language_servers())
    scripted.add("cli-semantic", REFERENCES, RENAME, text("done"))
    model = ["--model", "openai/cli-semantic", "--api-base", scripted.api_base]
    done = run_cli(ws, "run", "rename", "--mode", "yolo", *model, timeout=200)
    assert done.returncode == 0, done.stderr
    found, renaming = tool_results(scripted, "cli-semantic")[-2:]
    assert found == FOUND
    assert renaming.startswith("Renamed `save` to `persist` (basedpyright)"), renaming
    renamed(ws)


async def test_a_rename_the_editor_rejects_changes_no_file(
    lsp: LspFactory, scripted: ScriptedModelServer, tmp_path: Path, trust_folder: Any
) -> None:
    ws = semantic_workspace(tmp_path / "semantic")
    trust_folder(ws)
    scripted.add("lsp-rejected", RENAME, text("done"))
    client = await lsp(
        caps=VSCODE,
        root=ws,
        init_options=llm_options(scripted, "lsp-rejected"),
        env={"PATH": path_with_language_servers()},
    )
    client.edit_answers = [False]
    result = plain(await client.run(prompt="rename", runId="sem2", confirmMode="yolo"))
    assert result["status"] == "success", result
    last = scripted.requests_for("lsp-rejected")[-1].messages
    (told,) = [str(m["content"]) for m in last if m.get("role") == "tool"]
    assert told.startswith("The user rejected this change to app.py, jobs.py, models.py"), told
    assert snapshot(ws) == snapshot(FIXTURE)
