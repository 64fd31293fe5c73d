"""A subagent's work over LSP: ``agent/subagent`` at its start and end, its tool calls as
``agent/step`` nested under the run's ``delegate`` call, and the progress naming it."""

from __future__ import annotations

from typing import Any, cast

from agentls.agent import events
from agentls.server.observer import LspRunObserver
from agentls.server.progress import RunProgress
from agentls.server.protocol import SubagentParams, parse_params


class Progress:
    """What the observer reports to ``$/progress``, kept."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def report(self, message: str, percentage: int | None) -> None:
        self.messages.append(message)


def child(event: events.AgentEvent, agent: str = "explore") -> events.SubagentEvent:
    return events.SubagentEvent("d1", agent, event)


def delegating_run(observer: LspRunObserver) -> None:
    args = {"agent": "explore", "task": "find foo", "wait": True}
    observer(events.ToolStarted(3, 20, "d1", "delegate", args))
    observer(events.SubagentStarted("d1", "explore", "find foo", "openai/small"))
    observer(child(events.StepStarted(1, 10)))
    observer(child(events.ToolStarted(1, 10, "d1/c1", "grep", {"pattern": "foo"})))
    observer(child(events.ToolFinished(1, 10, "d1/c1", "grep", {"pattern": "foo"}, True, "3 hits")))
    observer(child(events.PlanUpdated("the child's own plan", [events.PlanStep("look")])))
    observer(child(events.CommandStarted("d1/c2", "execute_command", "ls")))
    observer(events.SubagentFinished("d1", "explore", "success", "foo is in a.py", 2, 100, 20, 120))
    observer(events.ToolFinished(3, 20, "d1", "delegate", args, True, "foo is in a.py"))


async def test_a_subagent_starts_and_ends_as_agent_subagent() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    observer = LspRunObserver("r1", lambda method, params: sent.append((method, params)))
    delegating_run(observer)
    observer.close()
    subagent = [p for m, p in sent if m == "agent/subagent"]
    assert subagent == [
        {
            "runId": "r1",
            "callId": "d1",
            "agent": "explore",
            "phase": "start",
            "task": "find foo",
            "model": "openai/small",
            "background": False,
        },
        {
            "runId": "r1",
            "callId": "d1",
            "agent": "explore",
            "phase": "end",
            "status": "success",
            "summary": "foo is in a.py",
            "steps": 2,
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "total_tokens": 120,
                "cached_tokens": 0,
            },
        },
    ]
    # What goes out is what the protocol's own model reads back.
    for params in subagent:
        assert parse_params(SubagentParams, params).to_wire() == params


async def test_a_subagents_tool_calls_are_steps_nested_under_the_delegate_call() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    observer = LspRunObserver("r1", lambda method, params: sent.append((method, params)))
    observer(events.ContextMeasured(3, 1830, 128000))
    delegating_run(observer)
    observer.close()
    steps = [p for m, p in sent if m == "agent/step"]
    assert [(s["callId"], s["phase"], s.get("parentCallId"), s.get("agent")) for s in steps] == [
        ("d1", "tool_start", None, None),
        ("d1/c1", "tool_start", "d1", "explore"),
        ("d1/c1", "tool_end", "d1", "explore"),
        ("d1", "tool_end", None, None),
    ]
    child_end = steps[2]
    assert (child_end["step"], child_end["maxSteps"], child_end["success"]) == (1, 10, True)
    assert child_end["summary"] == "3 hits"
    # The meter is the run's context, not the child's.
    assert "contextUsed" not in child_end and steps[0]["contextUsed"] == 1830
    # The child's plan is not the run's: the run's plan stays what the client shows.
    assert not [m for m, _ in sent if m == "agent/plan"]
    # The child's command is not mirrored to a client that did not ask for commands.
    assert not [m for m, _ in sent if m == "agent/command"]


async def test_a_subagents_command_is_mirrored_with_its_nested_call_id() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    observer = LspRunObserver(
        "r1", lambda method, params: sent.append((method, params)), mirror_commands=True
    )
    delegating_run(observer)
    observer.close()
    commands = [p for m, p in sent if m == "agent/command"]
    assert commands == [
        {
            "runId": "r1",
            "callId": "d1/c2",
            "event": "started",
            "tool": "execute_command",
            "command": "ls",
        }
    ]


async def test_progress_names_the_subagent_on_the_runs_step() -> None:
    progress = Progress()
    observer = LspRunObserver("r1", lambda m, p: None, progress=cast(RunProgress, progress))
    delegating_run(observer)
    observer(child(events.ToolStarted(2, 10, "d1/c3", "read_file", {"path": "late.py"})))
    observer.close()
    assert progress.messages == [
        "Step 3/20 · delegate explore",
        "Step 3/20 · explore: thinking",
        "Step 3/20 · explore: grep foo",
    ]


async def test_a_background_subagent_keeps_its_step_after_the_delegate_call_returned() -> None:
    progress = Progress()
    observer = LspRunObserver("r1", lambda m, p: None, progress=cast(RunProgress, progress))
    args = {"agent": "explore", "task": "find foo", "wait": False}
    observer(events.ToolStarted(2, 20, "d1", "delegate", args))
    observer(events.SubagentStarted("d1", "explore", "find foo", "m", background=True))
    observer(events.ToolFinished(2, 20, "d1", "delegate", args, True, "started in the background"))
    observer(child(events.ToolStarted(1, 10, "d1/c1", "grep", {"pattern": "foo"})))
    observer.close()
    assert progress.messages[-1] == "Step 2/20 · explore: grep foo"
