"""Messages the user sends while a run works: queued for the next model call, or steering
the call in flight; composed from real parts (the scripted model server over litellm)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.config.models import AppConfig
from agentls.agent.events import (
    AgentEvent,
    MessagesDelivered,
    Notice,
    StreamRestarted,
    StreamText,
    ToolStarted,
)
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.run_messages import MID_RUN_HEADING, RunMessageError, RunMessages
from agentls.agent.sessions.store import store_for
from agentls.agent.workspace import DiskFileAccess

SLOW = {"chunk_size": 2, "chunk_delay": 0.02}


def config_for(ws: Path, server: ScriptedModelServer, model: str) -> AppConfig:
    return AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": f"openai/{model}", "api_base": server.api_base},
        }
    )


async def run_with(
    ws: Path,
    scripted: ScriptedModelServer,
    model: str,
    mailbox: RunMessages,
    events: list[AgentEvent],
    on_event: object,
) -> object:
    def observe(event: AgentEvent) -> None:
        events.append(event)
        on_event(event)  # type: ignore[operator]

    config = config_for(ws, scripted, model)
    return await run_agent(
        RunRequest(prompt="start", session_id="s"),
        FrontEnd(DiskFileAccess(ws), DenyingApprover("t"), observer=observe, messages=mailbox),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def contents(scripted: ScriptedModelServer, model: str, call: int) -> list[str]:
    return [str(m.get("content")) for m in scripted.requests_for(model)[call].messages]


async def test_a_queued_message_reaches_the_next_model_call(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    scripted.add("mq", tool_call("read_file", {"path": "a.py"}), text("Done, using tabs."))
    mailbox = RunMessages()
    events: list[AgentEvent] = []

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, ToolStarted):
            mailbox.send("use tabs, not spaces")

    outcome = await run_with(tmp_path, scripted, "mq", mailbox, events, on_event)
    assert outcome.state.final_output == "Done, using tabs."  # type: ignore[attr-defined]
    last = contents(scripted, "mq", 1)[-1]
    assert last.startswith(MID_RUN_HEADING) and "use tabs, not spaces" in last
    assert [e.ids for e in events if isinstance(e, MessagesDelivered)] == [["m1"]]
    # The session keeps it, as the user's words.
    session = store_for(tmp_path, ".agentls/sessions").open("s")
    assert any("use tabs, not spaces" in str(getattr(e, "content", "")) for e in session.entries)


async def test_steer_cuts_the_call_in_flight_and_makes_it_again_with_the_message(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("ms", text("I will rewrite everything in Rust. " * 20, **SLOW), text("OK, Go."))
    mailbox = RunMessages()
    events: list[AgentEvent] = []

    def on_event(event: AgentEvent) -> None:
        sent = mailbox.waiting or any(isinstance(e, MessagesDelivered) for e in events)
        if isinstance(event, StreamText) and not sent:
            mailbox.send("no, use Go", "steer")

    outcome = await run_with(tmp_path, scripted, "ms", mailbox, events, on_event)
    assert outcome.state.final_output == "OK, Go."  # type: ignore[attr-defined]
    assert any(isinstance(e, StreamRestarted) for e in events)
    requests = scripted.requests_for("ms")
    assert len(requests) == 2
    again = contents(scripted, "ms", 1)
    assert "no, use Go" in again[-1]
    # The cut answer was never given to the model as its own words.
    assert not any("Rust" in c for c in again)


async def test_a_message_sent_as_the_model_finishes_is_answered_before_the_run_ends(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("mf", text("All done. " * 20, **SLOW), text("Also added the tests."))
    mailbox = RunMessages()
    events: list[AgentEvent] = []

    def on_event(event: AgentEvent) -> None:
        sent = mailbox.waiting or any(isinstance(e, MessagesDelivered) for e in events)
        if isinstance(event, StreamText) and not sent:
            mailbox.send("and add tests")

    outcome = await run_with(tmp_path, scripted, "mf", mailbox, events, on_event)
    assert outcome.state.final_output == "Also added the tests."  # type: ignore[attr-defined]
    assert "and add tests" in contents(scripted, "mf", 1)[-1]


async def test_a_message_to_an_ended_run_is_refused_and_an_unread_one_is_named(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("me", text("bye"))
    mailbox = RunMessages()
    events: list[AgentEvent] = []
    await run_with(tmp_path, scripted, "me", mailbox, events, lambda e: None)
    with pytest.raises(RunMessageError, match="has ended"):
        mailbox.send("too late")
    with pytest.raises(RunMessageError, match="empty"):
        RunMessages().send("   ")
    # A run that ends before reading a waiting message says which one was not read.
    told: list[AgentEvent] = []
    waiting = RunMessages()
    waiting.send("are you there?")
    config = config_for(tmp_path, scripted, "me")
    outcome = await run_agent(
        RunRequest(prompt="/nope"),
        FrontEnd(
            DiskFileAccess(tmp_path), DenyingApprover("t"), observer=told.append, messages=waiting
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )
    assert outcome.state.status == "failed"
    assert any(isinstance(e, Notice) and "are you there?" in e.message for e in told)
