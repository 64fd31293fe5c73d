"""What the user approved in a trusted repository, through the language server: a workspace
MCP server's script, and a hook's script. Changed after the approval, the client is asked
again (the question names the file with its fingerprint), and nothing runs until it says
yes."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path

from agentls_e2e import VSCODE, LspFactory, plain, write_prompt_hook
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

#: VS Code as the extension declares it: it answers the approval requests with a modal.
APPROVING = copy.deepcopy(VSCODE)
APPROVING.experimental = {"agentls": {"askUser": True, "approveProgram": True}}


def write_marker_server(root: Path, marker: Path) -> None:
    (root / "srv.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    entry = {"command": sys.executable, "args": ["srv.py"]}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": entry}}))


async def test_a_changed_script_is_asked_about_again_and_does_not_start_when_refused(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    tmp_path: Path,
    trust_folder: Callable[..., None],
) -> None:
    marker = tmp_path / "started"
    write_marker_server(workspace, marker)
    trust_folder(workspace, approve_mcp=False)
    client = await lsp(caps=APPROVING)
    client.mcp_answers = {"srv": True}
    scripted.add("alice", text("one"))
    assert plain(await client.run(prompt="go", runId="m1"))["status"] == "success"
    assert marker.exists()
    [first] = client.mcp_requests
    assert first["changed"] is False
    assert [f for f in first["files"] if f.startswith("srv.py (sha256 ")], first
    marker.unlink()

    script = workspace / "srv.py"
    script.write_text(script.read_text() + "import os  # and something else\n")
    client.mcp_answers = {"srv": False}
    scripted.add("alice", text("two"))
    assert plain(await client.run(prompt="again", runId="m2"))["status"] == "success"
    assert len(client.mcp_requests) == 2
    second = client.mcp_requests[1]
    assert second["changed"] is True
    assert second["files"] != first["files"]  # another fingerprint
    assert not marker.exists()


async def test_a_client_without_the_dialog_is_asked_with_the_file_and_its_fingerprint(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    tmp_path: Path,
    trust_folder: Callable[..., None],
) -> None:
    marker = tmp_path / "started"
    write_marker_server(workspace, marker)
    trust_folder(workspace)  # approved as it is now
    script = workspace / "srv.py"
    script.write_text(script.read_text() + "import os\n")
    client = await lsp()
    client.approvals = ["Don't allow"]
    scripted.add("alice", text("one"))
    assert plain(await client.run(prompt="go", runId="m3"))["status"] == "success"
    [question] = client.approval_requests
    assert isinstance(question, types.ShowMessageRequestParams)
    assert "changed since you approved it" in question.message
    assert "runs or reads workspace file srv.py (sha256 " in question.message
    assert not marker.exists()


def prompt_sent(model: ScriptedModelServer) -> str:
    messages = model.requests_for("alice")[-1].messages
    return "\n".join(str(m["content"]) for m in messages if m["role"] == "user")


async def test_a_hook_whose_script_changed_is_asked_about_again(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    trust_folder: Callable[..., None],
) -> None:
    write_prompt_hook(workspace, "HOOK-V1")
    trust_folder(workspace)
    client = await lsp(caps=APPROVING)
    client.hooks_answers = [True]
    scripted.add("alice", text("one"))
    assert plain(await client.run(prompt="go", runId="h1"))["status"] == "success"
    assert "HOOK-V1" in prompt_sent(scripted)
    [first] = client.hooks_requests
    assert first["files"][0].startswith(".agentls/hook.sh (sha256 "), first
    assert first["lines"][1].startswith("  runs or reads workspace file .agentls/hook.sh"), first

    (workspace / ".agentls" / "hook.sh").write_text("echo HOOK-V2\n")
    client.hooks_answers = [False]
    scripted.add("alice", text("two"))
    assert plain(await client.run(prompt="again", runId="h2"))["status"] == "success"
    assert len(client.hooks_requests) == 2
    assert client.hooks_requests[1]["changed"] is True
    assert "HOOK-V2" not in prompt_sent(scripted)
