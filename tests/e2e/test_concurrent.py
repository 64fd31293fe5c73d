"""Two runs in flight at once, in different sessions, each on its own model queue."""

from __future__ import annotations

import asyncio

from agentls_e2e import LspFactory, llm_options, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

A = "".join(f"alpha{i} " for i in range(80))
B = "".join(f"beta{i} " for i in range(80))


async def test_two_concurrent_runs(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add(
        "alice", tool_call("read_file", {"path": "src/app.py"}), text(A, chunk_delay=0.005)
    )
    scripted.add("bob", text(B, chunk_delay=0.005))
    client = await lsp(model="alice")
    first = client.run(prompt="first", runId="r-a", sessionId="sa")
    await client.wait_for(lambda: bool(client.of("agent/status", "r-a")), what="run a started")
    # The next run uses the new model; the run in flight keeps the config it started with.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"agentls": llm_options(scripted, "bob")})
    )
    # No wait: a run asked for after the notification must already see the new config.
    second = client.run(prompt="second", runId="r-b", sessionId="sb")
    ra, rb = (plain(r) for r in await asyncio.wait_for(asyncio.gather(first, second), 90))
    assert ra["status"] == rb["status"] == "success"
    assert (ra["runId"], ra["sessionId"], rb["runId"], rb["sessionId"]) == (
        "r-a",
        "sa",
        "r-b",
        "sb",
    )
    assert ra["output"] == A and rb["output"] == B
    assert client.streamed("r-a") == A
    assert client.streamed("r-b") == B
    for run_id in ("r-a", "r-b"):
        seqs = [c["seq"] for c in client.of("agent/stream", run_id)]
        assert seqs == list(range(1, len(seqs) + 1))
    assert ra["model"] == "openai/alice" and rb["model"] == "openai/bob"


async def test_same_session_twice_is_refused(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("x" * 400, chunk_size=2, chunk_delay=0.01))
    client = await lsp()
    first = client.run(prompt="one", runId="d1", sessionId="same")
    await client.wait_for(lambda: bool(client.of("agent/status", "d1")), what="run started")
    try:
        await client.request("agent/run", {"prompt": "two", "sessionId": "same"})
    except Exception as exc:
        assert "already has a run in flight" in str(exc)
    else:
        raise AssertionError("a second run in the same session was accepted")
    await client.request("agent/cancel", {"runId": "d1"})
    await asyncio.wait_for(first, 30)
