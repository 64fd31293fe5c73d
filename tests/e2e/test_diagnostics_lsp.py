"""Problems after edits over LSP, with the real server (``python -P -m agentls --stdio``).

A client that declares ``experimental.agentls.diagnostics`` is asked ``agent/diagnostics
{uris}`` before and after each edit; this one plays an editor whose language server
publishes a little after each change (``LAG``). A client that does not declare it gets
the language servers the server starts itself (the fake one of tests/integration). The
real editors answer the same request in tests/e2e/test_diagnostics_editors.py and the VS
Code extension's suite.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import VSCODE, AgentClient, LspFactory, llm_options, plain
from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(120)

FAKE_SERVER = Path(__file__).resolve().parents[1] / "integration" / "fake_language_server.py"
#: How long after a change the editor's problems follow it.
LAG = 0.3

WITH_DIAGNOSTICS = types.ClientCapabilities(
    workspace=VSCODE.workspace,
    window=VSCODE.window,
    experimental={"agentls": {"askUser": True, "diagnostics": True}},
)

#: Less than the longest diagnostics wait (60 s): a test of a case that must not wait for it
#: times out if it does; far more than such a test takes on a loaded machine.
WAITED_OUT = 45


class FakeEditorDiagnostics:
    """The problems an editor shows: an error at every ``undefined_name`` of a document's
    text as it was ``LAG`` seconds ago (the language server's delay)."""

    def __init__(self, client: AgentClient) -> None:
        self.client = client
        self.asked: list[dict[str, Any]] = []
        self.texts: dict[str, list[tuple[float, str]]] = {}
        self.first_seen: dict[str, str] = {}

        def answer(ls: AgentClient, params: Any) -> dict[str, Any]:
            return self.answer(ls, params)

        client.feature("agent/diagnostics")(answer)

    def track(self, uri: str) -> None:
        self.texts.setdefault(uri, []).append((time.monotonic(), self.client.docs[uri][1]))

    def closed(self, uri: str) -> None:
        """A file the editor does not have open has no problems, until an edit opens it
        (VS Code loads the document it edits): then it is checked like the others."""
        text = Path(to_fs_path(uri) or "").read_text()
        first = self.first_seen.setdefault(uri, text)
        history = self.texts.setdefault(uri, [])
        if text != first and (not history or history[-1][1] != text):
            history.append((time.monotonic(), text))

    def answer(self, ls: AgentClient, params: Any) -> dict[str, Any]:
        asked = plain(params)
        self.asked.append(asked)
        for uri in ls.docs:  # keep up with the client's documents (the agent's edits)
            history = self.texts.setdefault(uri, [])
            if not history or history[-1][1] != ls.docs[uri][1]:
                history.append((time.monotonic(), ls.docs[uri][1]))
        for uri in asked["uris"]:
            if uri not in ls.docs:
                self.closed(uri)
        items = []
        for uri in asked["uris"] or list(self.texts):
            published = [t for at, t in self.texts.get(uri, []) if time.monotonic() - at >= LAG]
            if not published:
                continue
            items.append(
                {"uri": uri, "diagnostics": problems(published[-1]), "updates": len(published)}
            )
        return {"items": items}


def problems(text: str) -> list[dict[str, Any]]:
    found = []
    for number, line in enumerate(text.splitlines()):
        at = line.find("undefined_name")
        if at >= 0:
            found.append(
                {
                    "range": {
                        "start": {"line": number, "character": at},
                        "end": {"line": number, "character": at + 14},
                    },
                    "severity": 1,
                    "code": "undefined",
                    "source": "fake-editor",
                    "message": "undefined_name is not defined",
                    "tags": [],  # what editors add beyond the fields the server reads
                }
            )
    return found


def tool_results(scripted: ScriptedModelServer, model: str) -> list[str]:
    last = scripted.requests_for(model)[-1].messages
    return [str(m["content"]) for m in last if m.get("role") == "tool"]


def edit(old: str, new: str, path: str = "src/app.py") -> Any:
    return tool_call("edit_file", {"path": path, "old_str": old, "new_str": new})


@pytest.mark.timeout(WAITED_OUT)
async def test_the_editor_is_asked_and_the_edit_is_told_its_new_problem(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "ed",
        edit('return f"hello {name}"', "return undefined_name"),
        edit("return undefined_name", "return name"),
        tool_call("get_problems", {}),
        text("done"),
    )
    # The longest wait there is, longer than this test may take: an edit that waited for it,
    # instead of for the editor to catch up, times the test out.
    options = {**llm_options(scripted, "ed"), "diagnostics": {"wait_ms": 60_000}}
    client = await lsp(caps=WITH_DIAGNOSTICS, init_options=options)
    editor = FakeEditorDiagnostics(client)
    uri = client.open("src/app.py", (workspace / "src" / "app.py").read_text())
    editor.track(uri)
    await asyncio.sleep(LAG)  # the editor has checked the open file
    result = plain(await client.run(prompt="go", runId="d1", confirmMode="yolo"))
    assert result["status"] == "success", result
    broken, fixed, listed = tool_results(scripted, "ed")
    assert broken == (
        "Edited src/app.py at line 2 (+1 -1)\n\nNew problems after this edit (1):\n"
        "src/app.py:2:12 error: undefined_name is not defined (fake-editor)"
    )
    assert fixed == "Edited src/app.py at line 2 (+1 -1)"
    assert listed == "No problems down to warning in the files whose problems are known."
    # The shape of the request: first every document (which kinds of files does the editor
    # check?), then the edited document by URI; the whole editor again for the tool.
    assert editor.asked[0] == {"uris": []}
    assert editor.asked[1] == {"uris": [from_fs_path(str(workspace / "src" / "app.py"))]}
    assert editor.asked[-1] == {"uris": []}


async def test_a_file_the_editor_did_not_have_open_is_reported_as_such(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    (workspace / "src" / "other.py").write_text("x = undefined_name\n")
    scripted.add("closed", edit("\n", "\ny = 2\n", "src/other.py"), text("done"))
    options = {**llm_options(scripted, "closed"), "diagnostics": {"wait_ms": 3000}}
    client = await lsp(caps=WITH_DIAGNOSTICS, init_options=options)
    FakeEditorDiagnostics(client)
    result = plain(await client.run(prompt="go", runId="d2", confirmMode="yolo"))
    assert result["status"] == "success", result
    (told,) = tool_results(scripted, "closed")
    assert told.endswith(
        "\n\nProblems in src/other.py after this edit (1; its problems before the edit are not "
        "known, so some may be older):\n"
        "src/other.py:1:5 error: undefined_name is not defined (fake-editor)"
    )


@pytest.mark.timeout(WAITED_OUT)
async def test_an_editor_that_never_checks_such_files_is_not_waited_for(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    """VS Code without a Python extension: no problem ever, for any .py file."""
    scripted.add("nothing", edit('return f"hello {name}"', "return undefined_name"), text("done"))
    # The longest wait there is, longer than this test may take: waiting for it times out.
    options = {**llm_options(scripted, "nothing"), "diagnostics": {"wait_ms": 60_000}}
    client = await lsp(caps=WITH_DIAGNOSTICS, init_options=options)
    client.feature("agent/diagnostics")(lambda ls, params: {"items": []})
    client.open("src/app.py", (workspace / "src" / "app.py").read_text())
    result = plain(await client.run(prompt="go", runId="d4", confirmMode="yolo"))
    assert result["status"] == "success", result
    (told,) = tool_results(scripted, "nothing")
    assert told == "Edited src/app.py at line 2 (+1 -1)"


async def test_without_the_capability_the_server_starts_language_servers_itself(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    trust_folder: Any,
) -> None:
    trust_folder(workspace)
    scripted.add(
        "own",
        tool_call("read_file", {"path": "src/app.py"}),
        edit('return f"hello {name}"', "return undefined_name"),
        text("done"),
    )
    echo = {
        "name": "echo",
        "command": [sys.executable, str(FAKE_SERVER), "echo"],
        "files": {".py": "python"},
    }
    options = {**llm_options(scripted, "own"), "diagnostics": {"wait_ms": 20000, "servers": [echo]}}
    client = await lsp(caps=VSCODE, init_options=options)
    asked: list[Any] = []
    client.feature("agent/diagnostics")(lambda ls, params: asked.append(params))
    result = plain(await client.run(prompt="go", runId="d3", confirmMode="yolo"))
    assert result["status"] == "success", result
    _read, told = tool_results(scripted, "own")
    assert told.endswith(
        "New problems after this edit (1):\n"
        "src/app.py:2:12 error: undefined_name is not defined (echo)"
    ), told
    assert asked == []  # a client that did not declare it is never asked
