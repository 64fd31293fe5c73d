"""Problems after edits through ``agentls acp``: an ACP editor tells no problems, so the agent
starts the language servers itself (the fake one of tests/integration, in a trusted folder),
sends them the text the editor holds, and ends them when the connection ends."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from test_acp import EditorClient, acp_agent, prompt, start, tool_results

from agentls.agent.config.trust import TrustStore
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)

FAKE_SERVER = Path(__file__).resolve().parents[1] / "integration" / "fake_language_server.py"


async def processes(tag: str) -> str:
    """The pids of the processes whose command line holds ``tag``."""
    found = await asyncio.to_thread(
        subprocess.run, ["pgrep", "-f", tag], capture_output=True, text=True
    )
    return found.stdout.strip()


async def test_an_acp_run_is_told_the_problem_its_edit_introduced(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("x = 1\n")
    tag = f"acp-{uuid.uuid4().hex[:8]}"  # finds this test's server among the processes
    command = [sys.executable, str(FAKE_SERVER), "echo", tag]
    (ws / ".agentls.yaml").write_text(
        # The first edit starts the server: on a loaded machine its first answer may take
        # longer than the default wait, which ends as soon as it arrives anyway.
        "diagnostics:\n  wait_ms: 60000\n  servers:\n"
        f"    - {{name: echo, command: {command!r}, files: {{'.py': python}}}}\n".replace("'", '"')
    )
    TrustStore().set_trusted(ws, True)
    scripted.add(
        "acp-problems",
        tool_call(
            "edit_file", {"path": "app.py", "old_str": "x = 1", "new_str": "x = undefined_name"}
        ),
        text("done"),
    )
    client = EditorClient()
    client.buffers[str(ws / "app.py")] = "x = 1\n"  # unsaved in the editor
    async with acp_agent(ws, scripted, "acp-problems", client, "--mode", "yolo") as conn:
        session_id = await start(conn, ws, fs=True)
        assert await prompt(conn, session_id, "edit") == "end_turn"
        assert await processes(tag), "the language server should run while the editor is connected"
    (result,) = tool_results(scripted, "acp-problems")
    assert result.endswith(
        "New problems after this edit (1):\napp.py:1:5 error: undefined_name is not defined (echo)"
    ), result
    for _ in range(50):  # ended with the connection
        if not await processes(tag):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the language server outlived the ACP connection")
