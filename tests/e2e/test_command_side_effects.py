"""execute_command over LSP: the live index's watcher reports the files it changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentls_e2e import LspFactory, plain

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call


async def test_changed_files_are_listed(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    (workspace / ".gitignore").write_text("*.log\n")
    command = "echo hi > made.txt && rm README.md && echo noise > build.log"
    scripted.add("alice", tool_call("execute_command", {"command": command}), text("done"))
    client = await lsp()
    # The index and its watcher come up in the background after `initialized`.
    for _ in range(300):
        if plain(await client.request("agent/ping", {}))["watching"]:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the index watcher never started")
    result = plain(await client.run(prompt="make a file", runId="x1", confirmMode="yolo"))
    assert result["status"] == "success", result
    told = [m for m in scripted.requests_for("alice")[1].messages if m["role"] == "tool"][-1]
    assert "Exit code: 0" in told["content"]
    # As the index sees them: an ignored file (build.log) is not a change worth listing.
    assert "Files changed: README.md, made.txt\n" in told["content"] + "\n"
    assert (workspace / "made.txt").read_text() == "hi\n"
