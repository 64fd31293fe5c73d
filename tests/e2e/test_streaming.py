"""agent/stream order and seq, agent/step, agent/status and $/progress for one run."""

from __future__ import annotations

from typing import Any

from agentls_e2e import NEOVIM, LspFactory, llm_options, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, cut, text, tool_call

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
    meter = {k: start.pop(k) for k in ("contextUsed", "contextLimit")}
    assert meter["contextUsed"] > 0 and meter["contextLimit"] > meter["contextUsed"]
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


def with_retries(scripted: ScriptedModelServer) -> dict[str, Any]:
    options = llm_options(scripted)
    options["llm"]["retries"] = 2
    return options


async def test_a_cut_stream_restarts_on_the_wire(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    answer = text(LONG, chunk_size=6, chunk_delay=0.002)
    scripted.add(
        "alice",
        tool_call("read_file", {"path": "src/app.py"}),
        cut(answer, "text", "drop"),
        answer,
    )
    client = await lsp(init_options=with_retries(scripted))
    result = plain(await client.run(prompt="talk", runId="c1"))
    assert result["status"] == "success" and result["output"] == LONG
    chunks = client.of("agent/stream", "c1")
    assert [c["seq"] for c in chunks] == list(range(1, len(chunks) + 1))
    restarts = [c for c in chunks if c.get("restart")]
    assert len(restarts) == 1
    restart = restarts[0]
    assert restart["text"] == "" and restart["attempt"] == 2
    assert "connection broke" in restart["reason"]
    before = chunks[: chunks.index(restart)]
    after = chunks[chunks.index(restart) + 1 :]
    # What a client drops is exactly the cut attempt's text it got, and the rest is whole.
    assert restart["discard"] == len("".join(c["text"] for c in before)) > 0
    assert LONG.startswith("".join(c["text"] for c in before))
    assert "".join(c["text"] for c in after) == LONG


async def test_a_stream_cut_on_every_attempt_fails_the_run(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    write = tool_call("write_file", {"path": "src/new.py", "content": "x = 1\n"}, text="Writing.")
    scripted.add("alice", *[cut(write, "before_finish", "close")] * 3)
    client = await lsp(init_options=with_retries(scripted))
    result = plain(await client.run(prompt="write", runId="c2", confirmMode="yolo"))
    assert result["status"] == "failed"
    assert "was cut before its end on each of 3 attempts" in result["output"]
    assert "none of its tool calls ran" in result["output"]
    assert client.of("agent/step", "c2") == []  # no tool ever started
    assert client.states("c2")[-1] == "failed"
    assert [c["attempt"] for c in client.of("agent/stream", "c2") if c.get("restart")] == [2, 3]


async def test_the_context_meter_comes_with_each_step(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("It greets."))
    options = llm_options(scripted)
    options["context"] = {"max_context_tokens": 40000}
    client = await lsp(init_options=options)
    result = plain(await client.run(prompt="read it", runId="c1"))
    assert result["status"] == "success"
    meters = client.of("agent/context", "c1")
    assert [m["step"] for m in meters] == [1, 2]
    assert all(m["limit"] == 40000 and m["used"] > 0 for m in meters)
    assert meters[1]["used"] > meters[0]["used"]
    # agent/step repeats the latest meter, for clients that show only steps.
    first_step = client.of("agent/step", "c1")[0]
    assert (first_step["contextUsed"], first_step["contextLimit"]) == (meters[0]["used"], 40000)
