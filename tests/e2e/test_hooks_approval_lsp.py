"""A trusted workspace's hooks approved from the editor: the server asks with
``agent/approveProgram`` (a client that declares ``approveProgram``) or with
``window/showMessageRequest`` (any other), names the commands, and stores the answer like
``agentls hooks approve``; a refusal keeps the hooks off and is not asked again."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

from agentls_e2e import VSCODE, LspFactory, plain

from agentls.agent.hooks import hooks_to_approve
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

HOOK = "echo 'no commands in this repository' >&2; exit 2"

APPROVING = copy.deepcopy(VSCODE)
APPROVING.experimental = {"agentls": {"askUser": True, "approveProgram": True}}


def write_hooks(workspace: Path) -> None:
    (workspace / ".agentls").mkdir(exist_ok=True)
    table = {
        "PreToolUse": [
            {"matcher": "execute_command", "hooks": [{"type": "command", "command": HOOK}]}
        ]
    }
    (workspace / ".agentls" / "hooks.json").write_text(json.dumps({"hooks": table}))


def script_command(scripted: ScriptedModelServer, times: int = 1) -> None:
    for _ in range(times):
        scripted.add("alice", tool_call("execute_command", {"command": "touch ran.txt"}))
        scripted.add("alice", text("Done."))


def tool_results(scripted: ScriptedModelServer) -> list[str]:
    last = scripted.requests_for("alice")[-1].messages
    return [str(m["content"]) for m in last if m.get("role") == "tool"]


async def test_hooks_allowed_in_the_editor_run_and_are_not_asked_about_again(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    trust_folder: Callable[..., None],
) -> None:
    write_hooks(workspace)
    trust_folder(workspace)
    script_command(scripted, times=2)
    client = await lsp(caps=APPROVING)
    client.hooks_answers = [True]
    result = plain(await client.run(prompt="go", runId="h1", confirmMode="yolo"))
    assert result["status"] == "success", result
    [asked] = client.hooks_requests
    assert asked == {
        "kind": "hooks",
        "name": ".agentls/hooks.json",
        "source": ".agentls/hooks.json",
        "headline": "Allow the hooks of .agentls/hooks.json to run?",
        "lines": [f"PreToolUse [execute_command]: {HOOK}"],
        "files": [],
        "warning": "Each runs as a program with your permissions, and a hook can block or "
        "change what the agent does. Allow them only if you trust this repository.",
        "changed": False,
    }
    assert not (workspace / "ran.txt").exists()
    assert any("no commands in this repository" in r for r in tool_results(scripted))
    # Stored like `agentls hooks approve`: nothing waits any more, the next run asks nothing.
    assert hooks_to_approve(workspace) == []
    plain(await client.run(prompt="again", runId="h2", confirmMode="yolo"))
    assert len(client.hooks_requests) == 1
    assert not (workspace / "ran.txt").exists()


async def test_hooks_refused_in_the_editor_stay_off_and_are_not_asked_about_again(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    trust_folder: Callable[..., None],
) -> None:
    write_hooks(workspace)
    trust_folder(workspace)
    script_command(scripted, times=2)
    client = await lsp(caps=APPROVING)
    client.hooks_answers = [False]
    result = plain(await client.run(prompt="go", runId="h3", confirmMode="yolo"))
    assert result["status"] == "success", result
    assert len(client.hooks_requests) == 1
    assert (workspace / "ran.txt").exists()
    assert [item.name for item in hooks_to_approve(workspace)] == [".agentls/hooks.json"]
    plain(await client.run(prompt="again", runId="h4", confirmMode="yolo"))
    assert len(client.hooks_requests) == 1


async def test_an_untrusted_folder_is_never_asked_about_its_hooks(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    write_hooks(workspace)
    script_command(scripted)
    client = await lsp(caps=APPROVING)
    client.hooks_answers = [True]
    plain(await client.run(prompt="go", runId="h5", confirmMode="yolo"))
    assert client.hooks_requests == []
    assert (workspace / "ran.txt").exists()


async def test_a_client_without_the_dialog_is_asked_with_a_message_naming_the_commands(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    trust_folder: Callable[..., None],
) -> None:
    write_hooks(workspace)
    trust_folder(workspace)
    script_command(scripted)
    client = await lsp()
    client.approvals = ["Allow"]
    result = plain(await client.run(prompt="go", runId="h6", confirmMode="yolo"))
    assert result["status"] == "success", result
    [question] = client.approval_requests
    assert ".agentls/hooks.json" in question.message
    assert f"PreToolUse [execute_command]: {HOOK}" in question.message
    assert not (workspace / "ran.txt").exists()
    assert hooks_to_approve(workspace) == []
