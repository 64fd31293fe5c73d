"""The three ways to cancel a run, mid-stream and mid-approval: each stops it cleanly."""

from __future__ import annotations

import asyncio

import pytest
from agentls_e2e import AgentClient, LspFactory, plain
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

SLOW = text("".join(f"tok{i} " for i in range(400)), chunk_size=4, chunk_delay=0.01)


async def _streaming(client: AgentClient, run_id: str) -> None:
    await client.wait_for(lambda: bool(client.of("agent/stream", run_id)), what="first chunk")


async def test_agent_cancel_mid_stream(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", SLOW)
    client = await lsp()
    run = client.run(prompt="talk", runId="c1")
    await _streaming(client, "c1")
    assert plain(await client.request("agent/cancel", {"runId": "c1"})) == {"cancelled": True}
    result = plain(await asyncio.wait_for(run, 10))
    assert result["status"] == "partial"
    assert "cancel" in result["output"].lower()
    assert client.states("c1")[-1] == "aborted"
    # a second cancel, or one for an unknown run, is a no-op
    assert plain(await client.request("agent/cancel", {"runId": "c1"})) == {"cancelled": False}
    assert plain(await client.request("agent/cancel", {"runId": "nope"})) == {"cancelled": False}


async def test_cancel_request_mid_stream(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", SLOW)
    client = await lsp()
    run = asyncio.ensure_future(
        client.protocol.send_request_async(
            "agent/run", {"prompt": "talk", "runId": "c2"}, msg_id="run-c2"
        )
    )
    await _streaming(client, "c2")
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="run-c2"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(run, 10)
    await client.wait_for(lambda: "aborted" in client.states("c2"), what="aborted status")
    ends = [r for r in client.progress_reports["agentls/run/c2"] if r.kind == "end"]
    assert [e.message for e in ends] == ["partial"]
    # the server is fine afterwards
    assert plain(await client.request("agent/ping", {}))["runs"] == 0


async def test_progress_cancel_mid_stream(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", SLOW)
    client = await lsp()
    run = client.run(prompt="talk", runId="c3")
    await _streaming(client, "c3")
    client.window_work_done_progress_cancel(
        types.WorkDoneProgressCancelParams(token="agentls/run/c3")
    )
    result = plain(await asyncio.wait_for(run, 10))
    assert result["status"] == "partial"
    assert "progress" in result["output"]


@pytest.mark.parametrize("how", ["agent/cancel", "progress", "$/cancelRequest"])
async def test_cancel_mid_approval(
    lsp: LspFactory, scripted: ScriptedModelServer, how: str
) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("never"))
    client = await lsp()  # client.approvals is empty: the question is never answered
    run = asyncio.ensure_future(
        client.protocol.send_request_async(
            "agent/run",
            {"prompt": "read", "runId": "c4", "confirmMode": "confirm-all"},
            msg_id="run-c4",
        )
    )
    await asyncio.wait_for(client.approval_asked.wait(), 60)
    assert "awaiting_human" in client.states("c4")
    if how == "agent/cancel":
        await client.request("agent/cancel", {"runId": "c4"})
    elif how == "progress":
        client.window_work_done_progress_cancel(
            types.WorkDoneProgressCancelParams(token="agentls/run/c4")
        )
    else:
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="run-c4"))
    if how == "$/cancelRequest":
        with pytest.raises(JsonRpcRequestCancelled):
            await asyncio.wait_for(run, 10)
    else:
        result = plain(await asyncio.wait_for(run, 10))
        assert result["status"] == "partial"
        assert result["tools_used"] == [] or result["tools_used"][0]["success"] is False
    await client.wait_for(lambda: "aborted" in client.states("c4"), what="aborted")
    assert scripted.remaining("alice") == 1  # the model was not called again
