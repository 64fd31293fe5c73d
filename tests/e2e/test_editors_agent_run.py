"""Neovim and Emacs drive the REAL agentls server (``python -P -m agentls --stdio``) through
``agent/run`` against the scripted model server: the model edits a file with
``edit_file``; the editor confirms (or declines) and the buffer holds the result."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

sys.path.insert(0, str(Path(__file__).parent))
from edits_helpers import REPO, ensure_editors, run_editor

pytestmark = [pytest.mark.editor, pytest.mark.slow]

OLD = "def greet():\n    return 'hi'\n"
NEW = "def greet():\n    return 'hello'\n"
SERVER_CMD = [sys.executable, "-P", "-m", "agentls", "--stdio"]


@pytest.fixture(scope="module", autouse=True)
def editors() -> None:
    ensure_editors()


@pytest.fixture
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


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
    editor: Any,
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


@pytest.mark.parametrize(("answer", "applied"), [("Apply", True), ("Reject", False)])
async def test_nvim_agent_run_edit(
    workspace: Path, model: ScriptedModelServer, answer: str, applied: bool
) -> None:
    script(model)
    report = await agent_run("nvim", workspace, model, answer)
    assert "script_error" not in report, report
    assert report["result"]["status"] == "success", report
    assert any(q.startswith("Apply edit to app.py") for q in report["questions"]), report
    assert report["buffer"] == (NEW if applied else OLD)
    result = tool_result(model)
    assert ("rejected" in result) is not applied, result


@pytest.mark.parametrize(("answer", "applied"), [("yes", True), ("no", False)])
async def test_emacs_agent_run_edit(
    workspace: Path, model: ScriptedModelServer, answer: str, applied: bool
) -> None:
    # eglot 1.9 sends no clientInfo: its set-up declares in initializationOptions that
    # the editor confirms every server edit itself ("Server wants to edit ... Proceed?").
    script(model)
    report = await agent_run(
        "emacs", workspace, model, answer, init_extra={"editor": {"confirms_edits": True}}
    )
    assert report["error"] is None, report
    result = report["result"]
    if isinstance(result, str):
        result = json.loads(result)
    assert result["status"] == "success", report
    assert report["buffer"] == (NEW if applied else OLD), (report, tool_result(model))
    assert ("rejected" in tool_result(model)) is not applied, tool_result(model)
    assert len(report["questions"]) == 1 and "Proceed?" in report["questions"][0]
