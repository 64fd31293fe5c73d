"""Start-up, agent/agents, agent/ping and one simple run over stdio."""

from __future__ import annotations

from agentls_e2e import LspFactory, plain

from agentls.agent.llm.scripted_server import ScriptedModelServer, text


async def test_agents_and_ping(lsp: LspFactory) -> None:
    client = await lsp()
    agents = plain(await client.request("agent/agents", {}))
    names = {a["name"]: a for a in agents["agents"]}
    assert {"build", "plan", "mixed"} <= set(names)
    assert names["plan"]["readOnly"] is True
    assert names["build"]["readOnly"] is False
    assert plain(await client.request("agent/ping", {}))["pong"] is True


async def test_simple_run_result(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", text("All done here."))
    client = await lsp()
    result = plain(await client.run(prompt="say hi", runId="r1", sessionId="s1"))
    assert result["status"] == "success"
    assert result["output"] == "All done here."
    assert result["runId"] == "r1"
    assert result["sessionId"] == "s1"
    assert set(result["usage"]) == {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cached_tokens",
    }
    assert client.streamed("r1") == "All done here."
    assert client.states("r1")[-1] == "completed"
