"""Neovim 0.7 and Emacs 28 + eglot 1.9 (Debian) as real clients of agentls's edits.

Both confirm an edit their own way (see ``RealEditor``); the accepted edit lands in the
buffer, unsaved, and a declined one leaves the buffer alone. First through the edit
harness (tests/e2e/edits_server.py, ``test/apply``), then through the REAL server
(``python -P -m agentls --stdio``) and ``agent/run`` against the scripted model, whose
``edit_file`` the editor confirms or declines.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from edits_helpers import (
    EDITORS,
    REPO,
    RealEditor,
    ensure_editors,
    report_error,
    report_result,
    run_editor,
)

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = [pytest.mark.editor, pytest.mark.slow]

OLD = "def greet():\n    return 'hi'\n\n\nprint(greet())\n"
NEW = "def greet(name):\n    return f'hi {name}'\n\n\nprint(greet('you'))\n"
#: What the scripted model's edit_file makes of OLD.
EDITED = OLD.replace("'hi'", "'hello'")


@pytest.fixture(scope="module", autouse=True)
def editors() -> None:
    ensure_editors()


@pytest.fixture(params=sorted(EDITORS))
def editor(request: pytest.FixtureRequest) -> RealEditor:
    return EDITORS[request.param]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(OLD, encoding="utf-8")
    return root


@pytest.mark.parametrize("accept", [True, False], ids=["accept", "decline"])
async def test_the_editor_confirms_an_edit(
    workspace: Path, editor: RealEditor, accept: bool
) -> None:
    report = await run_editor(
        editor.name,
        workspace,
        file="app.py",
        method="test/apply",
        params={
            "path": "app.py",
            "newText": NEW,
            "confirm": True,
            "clientConfirms": editor.confirms_itself,
        },
        answer=editor.answer(accept),
    )
    assert report_error(report) is None, report
    outcome = report_result(report)
    assert outcome["status"] == ("applied" if accept else "rejected"), report
    assert len(report["questions"]) == 1 and editor.asks in report["questions"][0], report
    assert report["buffer"] == (NEW if accept else OLD)
    assert report["modified"] is accept
    if not accept and editor.confirms_itself:
        # eglot's "no" is a JSON-RPC error; the model is told the user said no.
        assert "User cancelled server edit" in outcome["message"]
    assert (workspace / "app.py").read_text() == OLD  # left unsaved in the buffer


async def test_nvim_creates_a_file_in_a_new_buffer(workspace: Path) -> None:
    report = await run_editor(
        "nvim",
        workspace,
        file="app.py",
        method="test/apply",
        params={"path": "pkg/new.py", "newText": "x = 1\n", "confirm": False},
        answer="Apply",
    )
    assert report_error(report) is None, report
    assert report_result(report)["status"] == "applied", report
    # Neovim 0.7 declares resourceOperations "create" but cannot do it: the server
    # retries with the insert alone, which Neovim puts in a new, unsaved buffer (with
    # an extra empty last line of its own).
    assert report["buffers"][str(workspace / "pkg" / "new.py")].rstrip("\n") == "x = 1"
    assert not (workspace / "pkg" / "new.py").exists()


async def test_eglot_without_client_confirmation_is_refused(workspace: Path) -> None:
    """Without ``clientConfirms`` the server has no way to ask eglot's user: it refuses."""
    report = await run_editor(
        "emacs",
        workspace,
        file="app.py",
        method="test/apply",
        params={"path": "app.py", "newText": NEW, "confirm": True},
        answer="yes",
    )
    outcome = report_result(report)
    assert outcome["status"] == "rejected", report
    assert "cannot ask" in outcome["message"]
    assert report["questions"] == []
    assert report["buffer"] == OLD


# -- agent/run through the real server ---------------------------------------------------


def tool_result(model: ScriptedModelServer) -> str:
    request = model.requests_for("editor")[1]
    return str([m for m in request.messages if m.get("role") == "tool"][-1]["content"])


async def agent_run(
    editor: RealEditor, workspace: Path, model: ScriptedModelServer, answer: str
) -> dict[str, Any]:
    init: dict[str, Any] = {
        "llm": {"model": "openai/editor", "api_base": model.api_base, "retries": 0}
    }
    if editor.confirms_itself:
        # eglot 1.9 sends no clientInfo: its set-up declares in initializationOptions that
        # the editor confirms every server edit itself ("Server wants to edit ... Proceed?").
        init["editor"] = {"confirms_edits": True}
    report: dict[str, Any] = await run_editor(
        editor.name,
        workspace,
        file="app.py",
        method="agent/run",
        params={"prompt": "say hello", "confirmMode": "confirm-all"},
        answer=answer,
        server_cmd=[sys.executable, "-P", "-m", "agentls", "--stdio"],
        init=init,
        env={
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        },
    )
    return report


@pytest.mark.parametrize("accept", [True, False], ids=["accept", "decline"])
async def test_an_agent_run_edit_is_confirmed_in_the_editor(
    workspace: Path, scripted: ScriptedModelServer, editor: RealEditor, accept: bool
) -> None:
    scripted.add(
        "editor",
        tool_call("edit_file", {"path": "app.py", "old_str": "'hi'", "new_str": "'hello'"}),
        text("done"),
    )
    report = await agent_run(editor, workspace, scripted, editor.answer(accept))
    assert report_error(report) is None, report
    assert report_result(report)["status"] == "success", report
    # One question about the edit (Neovim may first be asked about the tool call itself).
    assert sum(editor.asks in q for q in report["questions"]) == 1, report
    assert report["buffer"] == (EDITED if accept else OLD), (report, tool_result(scripted))
    result = tool_result(scripted)
    assert ("rejected" in result) is not accept, result
