"""The Python API's example (docs/examples/python_api.py) run as it is, in a process of its
own, against the scripted model: its edit is confirmed by its policy, its events printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "python_api.py"


def test_the_documented_example_runs(tmp_path: Path, scripted: ScriptedModelServer) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("def greet(name):\n    return name\n")
    scripted.add(
        "py-api",
        tool_call(
            "edit_file",
            {
                "path": "app.py",
                "old_str": "def greet(name):\n",
                "new_str": 'def greet(name):\n    """Greet."""\n',
            },
        ),
        tool_call("write_file", {"path": "notes.txt", "content": "x\n"}),
        text("Added the docstring."),
    )

    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(ws), "openai/py-api", scripted.api_base],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )

    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "tool: edit_file {'path': 'app.py'" in out
    assert "asked: edit change app.py" in out
    # The policy confirms Python files only: notes.txt is refused, and the model told.
    assert "asked: edit change notes.txt" in out
    assert (ws / "app.py").read_text().startswith('def greet(name):\n    """Greet."""')
    assert not (ws / "notes.txt").exists()
    assert "Added the docstring." in out
    assert "status: success; session: " in out
    told = str(scripted.requests_for("py-api")[2].messages[-1]["content"])
    assert "notes.txt" in told and "reject" in told.lower()


@pytest.mark.parametrize("policy", ["deny"])
async def test_a_run_can_be_cancelled_and_continued(
    tmp_path: Path, scripted: ScriptedModelServer, policy: str
) -> None:
    from agentls.api import Agent

    ws = tmp_path / "ws"
    ws.mkdir()
    loop = __import__("asyncio").get_running_loop()
    stopped: list[str] = []

    def cancel_as_the_model_is_asked(body: dict[str, object]) -> object:
        loop.call_soon_threadsafe(lambda: run.cancel("enough") or stopped.append("yes"))
        return text("too late", delay=30)

    scripted.add("py-cancel", cancel_as_the_model_is_asked, text("Continued."))
    async with Agent(ws, model="openai/py-cancel", api_base=scripted.api_base) as agent:
        run = agent.run("talk")
        events = [event async for event in run]
        result = await run.result()
        assert result["status"] == "partial" and stopped == ["yes"]
        assert events
        again = agent.run("go on", session=run.session_id)
        assert (await again.result())["status"] == "success"
    assert len(scripted.requests_for("py-cancel")) == 2
    assert "talk" in str(scripted.requests_for("py-cancel")[1].messages)


def test_events_leave_masked() -> None:
    from agentls.agent.events import CommandOutput, SubagentEvent, ToolStarted
    from agentls.api import masked

    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    out = masked(CommandOutput("c1", f"token={token}\n"))
    assert token not in out.text and out.call_id == "c1"
    nested = masked(SubagentEvent("d", "explore", ToolStarted(1, 2, "d/c", "grep", {"q": token})))
    assert token not in str(nested)
