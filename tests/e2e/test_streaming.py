"""agent/stream order and seq, agent/step, agent/status and $/progress for one run."""

from __future__ import annotations

from agentls_e2e import NEOVIM, LspFactory, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

LONG = "".join(f"word{i:03d} " for i in range(150))  # 1,200 characters


async def test_stream_is_complete_ordered_and_coalesced(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text(LONG, chunk_size=3, chunk_delay=0.001))
    client = await lsp()
    result = plain(await client.run(prompt="talk", runId="s1"))
    assert result["status"] == "success"
    chunks = client.of("agent/stream", "s1")
    assert [c["seq"] for c in chunks] == list(range(1, len(chunks) + 1))
    assert "".join(c["text"] for c in chunks) == LONG
    # 400 tiny deltas from the model, far fewer notifications on the wire
    assert len(chunks) < 400 / 2
    assert all(len(c["text"]) <= 512 + 3 for c in chunks)


async def test_steps_status_and_progress(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add(
        "alice",
        tool_call("read_file", {"path": "src/app.py"}, id="call-1"),
        text("It greets."),
    )
    client = await lsp()
    client.progress_reports["tok-1"] = []
    result = plain(
        await client.run(prompt="read it", runId="p1", maxSteps=5, workDoneToken="tok-1")
    )
    assert result["status"] == "success"
    assert result["tools_used"][0]["name"] == "read_file"

    steps = client.of("agent/step", "p1")
    assert [s["phase"] for s in steps] == ["tool_start", "tool_end"]
    start, end = steps
    assert start == {
        "runId": "p1",
        "step": 1,
        "maxSteps": 5,
        "phase": "tool_start",
        "tool": "read_file",
        "callId": "call-1",
        "args": {"path": "src/app.py"},
    }
    assert end["success"] is True and isinstance(end["summary"], str)

    states = client.states("p1")
    assert states[0] == "preparing" or states[0] == "model_running"
    assert "tool_running" in states
    assert states[-1] == "completed"

    # The stream of the second turn comes after the step notifications, in order.
    methods = [m for m, p in client.events if p.get("runId") == "p1"]
    assert methods.index("agent/step") < methods.index("agent/stream")

    reports = client.progress_reports["tok-1"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert reports[0].title == "Agent: build"
    assert reports[0].cancellable is True
    messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert "Step 1/5 · read_file src/app.py" in messages
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "success"


async def test_server_created_progress(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", text("ok"))
    client = await lsp()
    await client.run(prompt="hi", runId="p2")
    token = "agentls/run/p2"
    assert token in client.progress_reports
    kinds = [type(r).__name__ for r in client.progress_reports[token]]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"


async def test_no_progress_without_client_support(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("ok"))
    client = await lsp(caps=NEOVIM)
    result = plain(await client.run(prompt="hi", runId="n1"))
    assert result["status"] == "success"
    assert not any(str(t).startswith("agentls/run") for t in client.progress_reports)
    assert client.streamed("n1") == "ok"
