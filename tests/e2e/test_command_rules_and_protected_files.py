"""Over LSP, with the real server: a protected file is confirmed even in yolo (however
the client confirms edits), a deny rule refuses a command in yolo and the model is told
which, and "Always allow" saves the rule in the user config and stops asking."""

from __future__ import annotations

from pathlib import Path

import yaml
from agentls_e2e import NEOVIM, VSCODE, LspFactory, llm_options, plain
from lsprotocol import types

from agentls.agent.config.userdirs import user_config_file
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

MCP_REASON = ".mcp.json: it declares MCP servers that agentls and other tools start"
INLINE = types.ClientCapabilities(
    workspace=VSCODE.workspace,
    window=VSCODE.window,
    experimental={"agentls": {"askUser": True, "inlineReview": True}},
)


def _tool_message(scripted: ScriptedModelServer, index: int) -> str:
    request = scripted.requests_for("alice")[index]
    return str([m for m in request.messages if m.get("role") == "tool"][-1]["content"])


def _write_mcp(scripted: ScriptedModelServer) -> None:
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "./src/../.mcp.json", "content": '{"mcpServers": {}}\n'}),
        tool_call("write_file", {"path": "notes.txt", "content": "ordinary\n"}),
        text("done"),
    )


async def test_yolo_asks_before_writing_a_protected_file_and_a_no_is_kept(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    _write_mcp(scripted)
    client = await lsp(caps=NEOVIM)  # asks with window/showMessageRequest, then edits
    client.approvals = ["Reject"]
    result = plain(await client.run(prompt="configure", runId="p1", confirmMode="yolo"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests  # the ordinary file is not asked about
    assert asked.message.startswith("Create .mcp.json (+1 −0)?")
    assert f"Protected file: {MCP_REASON}." in asked.message
    assert not (workspace / ".mcp.json").exists()
    assert "rejected" in _tool_message(scripted, 1)
    assert (workspace / "notes.txt").read_text() == "ordinary\n"


async def test_yolo_sends_a_protected_edit_for_confirmation_naming_why(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    _write_mcp(scripted)
    client = await lsp(caps=VSCODE)  # confirms with annotated edits
    client.edit_answers = [False]  # the user rejects the preview
    result = plain(await client.run(prompt="configure", runId="p2", confirmMode="yolo"))
    assert result["status"] == "success", result
    protected, ordinary = client.edits
    notes = protected.edit.change_annotations or {}
    assert notes and all(n.needs_confirmation for n in notes.values())
    assert {n.label for n in notes.values()} == {
        f"agent: create .mcp.json (protected: {MCP_REASON})"
    }
    assert not ordinary.edit.change_annotations  # yolo sends an ordinary edit plain
    assert not (workspace / ".mcp.json").exists()


async def test_inline_review_asks_first_for_a_protected_file(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    _write_mcp(scripted)
    client = await lsp(caps=INLINE)  # would apply at once and review later
    client.approvals = ["Apply"]
    result = plain(await client.run(prompt="configure", runId="p3", confirmMode="yolo"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests
    assert f"Protected file: {MCP_REASON}." in asked.message
    assert (workspace / ".mcp.json").read_text() == '{"mcpServers": {}}\n'
    assert not client.edits[0].edit.change_annotations  # confirmed before it was sent


async def test_a_deny_rule_refuses_a_command_in_yolo_and_says_which(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("execute_command", {"command": "timeout 5 rm -rf src"}),
        text("could not"),
    )
    options = {**llm_options(scripted), "commands": {"deny": ["rm*"]}}
    client = await lsp(caps=NEOVIM, init_options=options)
    result = plain(await client.run(prompt="clean", runId="d1", confirmMode="yolo"))
    assert result["status"] == "success", result
    assert client.approval_requests == []
    told = _tool_message(scripted, 1)
    assert told.startswith(
        "Not allowed: `rm -rf src` (run by timeout) matches the deny rule `rm*`."
    )
    assert (workspace / "src" / "app.py").exists()


async def test_always_allow_saves_the_rule_and_the_next_command_runs_unasked(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("execute_command", {"command": "touch one.txt"}),
        text("Creates an empty file."),  # the model's explanation of the command
        tool_call("execute_command", {"command": "touch two.txt"}),
        text("both made"),
    )
    agent = {"system_prompt": "test", "sandbox": "off"}
    options = {**llm_options(scripted), "agents": {"build": agent}}
    client = await lsp(caps=NEOVIM, init_options=options)
    client.approvals = ["Always allow `touch*`"]
    result = plain(await client.run(prompt="make", runId="s1", confirmMode="confirm-sensitive"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests
    assert "Always allow `touch*`" in [a.title for a in asked.actions or []]
    assert (workspace / "one.txt").exists() and (workspace / "two.txt").exists()
    saved = yaml.safe_load(user_config_file().read_text())
    assert saved == {"commands": {"allow": ["touch*"]}}
