"""Neovim and Emacs drive the REAL agentls server (``python -P -m agentls --stdio``) through
``agent/run`` against the scripted model server: the model edits a file with
``edit_file``; the editor confirms (or declines) and the buffer holds the result."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

sys.path.insert(0, str(Path(__file__).parent))
from edits_helpers import (
    EDITORS,
    REPO,
    RealEditor,
    ensure_editors,
    report_error,
    report_result,
    run_editor,
)

pytestmark = [pytest.mark.editor, pytest.mark.slow]

OLD = "def greet():\n    return 'hi'\n"
NEW = "def greet():\n    return 'hello'\n"
SERVER_CMD = [sys.executable, "-P", "-m", "agentls", "--stdio"]


@pytest.fixture(scope="module", autouse=True)
def editors() -> None:
    ensure_editors()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(OLD, encoding="utf-8")
    return root


def script(model: ScriptedModelServer) -> None:
    model.add(
        "editor",
        tool_call("edit_file", {"path": "app.py", "old_str": "'hi'", "new_str": "'hello'"}),
        text("done"),
    )


def tool_result(model: ScriptedModelServer) -> str:
    request = model.requests_for("editor")[1]
    return str([m for m in request.messages if m.get("role") == "tool"][-1]["content"])


async def agent_run(
    editor: Literal["nvim", "emacs"],
    workspace: Path,
    model: ScriptedModelServer,
    answer: str,
    confirm_mode: str = "confirm-all",
    init_extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    init = {"llm": {"model": "openai/editor", "api_base": model.api_base, "retries": 0}}
    init.update(init_extra or {})
    report: dict[str, Any] = await run_editor(
        editor,
        workspace,
        file="app.py",
        method="agent/run",
        params={"prompt": "say hello", "confirmMode": confirm_mode},
        answer=answer,
        server_cmd=SERVER_CMD,
        init=init,
        env={
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        },
    )
    return report


@pytest.fixture(params=sorted(EDITORS))
def editor(request: pytest.FixtureRequest) -> RealEditor:
    return EDITORS[request.param]


@pytest.mark.parametrize("accept", [True, False], ids=["accept", "decline"])
async def test_an_agent_run_edit_is_confirmed_in_the_editor(
    workspace: Path, scripted: ScriptedModelServer, editor: RealEditor, accept: bool
) -> None:
    script(scripted)
    # eglot 1.9 sends no clientInfo: its set-up declares in initializationOptions that
    # the editor confirms every server edit itself ("Server wants to edit ... Proceed?").
    extra = {"editor": {"confirms_edits": True}} if editor.confirms_itself else None
    report = await agent_run(
        editor.name, workspace, scripted, editor.answer(accept), init_extra=extra
    )
    assert report_error(report) is None, report
    assert report_result(report)["status"] == "success", report
    # One question about the edit (Neovim may first be asked about the tool call itself).
    assert sum(editor.asks in q for q in report["questions"]) == 1, report
    assert report["buffer"] == (NEW if accept else OLD), (report, tool_result(scripted))
    result = tool_result(scripted)
    assert ("rejected" in result) is not accept, result
