"""execute_command: the files a command changed, as the server's live index sees them and
as the headless CLI sees them. Both follow the index's rules, so they name the same files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agentls_e2e import LspFactory, plain, server_env

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

# build.log is ignored by the workspace's .gitignore, dist/ by the default excludes: neither
# is a change worth listing.
COMMAND = (
    "echo hi > made.txt && rm README.md && echo noise > build.log "
    "&& mkdir -p dist && echo x > dist/out.js"
)
CHANGED = "Files changed: README.md, made.txt\n"


def _told(scripted: ScriptedModelServer, model: str) -> str:
    """What the model was told the command did."""
    told = [m for m in scripted.requests_for(model)[1].messages if m["role"] == "tool"][-1]
    assert "Exit code: 0" in told["content"], told
    return str(told["content"]) + "\n"


async def test_changed_files_are_listed(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    (workspace / ".gitignore").write_text("*.log\n")
    scripted.add("alice", tool_call("execute_command", {"command": COMMAND}), text("done"))
    client = await lsp()
    # The index and its watcher come up in the background after `initialized`.
    await client.ping_until(lambda pong: pong["watching"], "the index watcher to start")
    result = plain(await client.run(prompt="make a file", runId="x1", confirmMode="yolo"))
    assert result["status"] == "success", result
    assert CHANGED in _told(scripted, "alice")
    assert (workspace / "made.txt").read_text() == "hi\n"


def test_the_cli_lists_the_same_changed_files(
    scripted: ScriptedModelServer, workspace: Path
) -> None:
    """No live index in a headless run: the CLI stamps files, by the index's rules."""
    (workspace / ".gitignore").write_text("*.log\n")
    scripted.add("bob", tool_call("execute_command", {"command": COMMAND}), text("done"))
    done = subprocess.run(
        [
            *(sys.executable, "-P", "-m", "agentls", "run", "make a file", "--mode", "yolo"),
            *("--workspace", str(workspace), "--model", "openai/bob"),
            *("--api-base", scripted.api_base),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert CHANGED in _told(scripted, "bob")
