"""Local MCP servers from the workspace's MCP files, used by agent runs over LSP.

The language server starts them on the first run that needs them and must leave nothing
running when the editor shuts it down.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from agentls_e2e import AgentClient, plain, start_killable

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(300)

SERVER_SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_server.py"


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie nobody reaps is gone


def write_mcp_files(workspace: Path, pids_file: Path) -> None:
    (workspace / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "local": {
                        "command": sys.executable,
                        "args": [str(SERVER_SCRIPT), "--stdio", "--orphan", str(pids_file)],
                    }
                }
            }
        )
    )
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "mcp.json").write_text(
        '{"servers": {"github": {"type": "http", "url": "https://h.invalid/mcp",\n'
        '  "headers": {"Authorization": "Bearer ${input:token}"}}}}\n'
    )


async def run_with_mcp(
    workspace: Path,
    scripted: ScriptedModelServer,
    model: str,
    tmp_path: Path,
    trust_folder: Callable[..., None],
) -> tuple[AgentClient, tuple[int, int]]:
    pids_file = tmp_path / "pids"
    write_mcp_files(workspace, pids_file)
    trust_folder(workspace)
    scripted.add(model, tool_call("mcp_local_add", {"a": 2, "b": 3}), text("five"))
    client = await start_killable(workspace, scripted, model)
    result = plain(await client.run(prompt="add", runId="m1", confirmMode="yolo"))
    assert result["status"] == "success", result
    messages = scripted.requests_for(model)[1].messages
    assert [m["content"] for m in messages if m.get("role") == "tool"] == ["5"]
    shown = [m.message for m in client.messages]
    assert [m for m in shown if "'github'" in m and "${input:token}" in m], shown
    leader, child = (int(pid) for pid in pids_file.read_text().split())
    assert alive(leader) and alive(child)
    return client, (leader, child)


async def test_shutdown_stops_the_mcp_servers_and_their_children(
    workspace: Path,
    scripted: ScriptedModelServer,
    tmp_path: Path,
    trust_folder: Callable[..., None],
) -> None:
    client, pids = await run_with_mcp(workspace, scripted, "mcplsp", tmp_path, trust_folder)
    await asyncio.wait_for(client.shutdown_session(), 60)
    await asyncio.wait_for(client.stop(), 30)
    assert not any(alive(pid) for pid in pids)
