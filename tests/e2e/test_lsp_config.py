"""Invalid configuration: a showMessage naming the key, and the server goes on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentls_e2e import AgentClient, LspFactory, llm_options, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text


async def _error_shown(client: AgentClient, key: str) -> str:
    await client.wait_for(
        lambda: any(key in m.message for m in client.messages), limit=30, what=f"{key} message"
    )
    [message] = [m for m in client.messages if key in m.message]
    assert message.type == types.MessageType.Error
    return message.message


async def test_invalid_initialization_options(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    options = llm_options(scripted)
    options["llm"]["timout"] = 5
    client = await lsp(init_options=options)
    text_ = await _error_shown(client, "llm.timout")
    assert "initializationOptions" in text_
    # still works, with the defaults (here: the YAML-less defaults) for the model
    assert plain(await client.request("agent/ping", {}))["pong"] is True
    agents = plain(await client.request("agent/agents", {}))
    assert agents["agents"]


async def test_invalid_yaml_key_then_valid_run(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    workspace: Path,
    trust_folder: Callable[..., None],
) -> None:
    (workspace / ".agentls.yaml").write_text("indexer:\n  enabled: true\n  max_files: 3\n")
    trust_folder(workspace)
    scripted.add("alice", text("fine"))
    client = await lsp()
    text_ = await _error_shown(client, "indexer.max_files")
    assert ".agentls.yaml" in text_
    result = plain(await client.run(prompt="hi", runId="cfg1"))
    assert result["status"] == "success"  # the initializationOptions layer still applies


async def test_an_untrusted_folders_broken_yaml_is_a_warning_and_not_used(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    (workspace / ".agentls.yaml").write_text("indexer:\n  enabled: true\n  max_files: 3\n")
    scripted.add("alice", text("fine"))
    client = await lsp()
    await client.wait_for(
        lambda: any("indexer.max_files" in m.message for m in client.messages), limit=30
    )
    [message] = [m for m in client.messages if "indexer.max_files" in m.message]
    assert message.type == types.MessageType.Warning
    assert "is not a trusted folder" in message.message and "agentls trust" in message.message
    result = plain(await client.run(prompt="hi", runId="cfg1"))
    assert result["status"] == "success"


async def test_invalid_change_keeps_last_valid_config(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("still alice"))
    client = await lsp()
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"agentls": {"llm": {"model": "openai/bob", "retries": "many"}}}
        )
    )
    text_ = await _error_shown(client, "llm.retries")
    assert "didChangeConfiguration" in text_
    result = plain(await client.run(prompt="hi", runId="cfg2"))
    assert result["output"] == "still alice"
    assert result["model"] == "openai/alice"
