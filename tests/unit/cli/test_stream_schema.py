"""The published schema of ``--output-format stream-json`` and the reference in
docs/headless.md are what the models give, the engine's events map onto it, and every
line a notification carries is that notification's params, as the server sends them."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

from jsonschema import Draft202012Validator

from agentls.agent import events
from agentls.agent.contract import RunState
from agentls.agent.event_stream import STREAM_EVENTS, RunLines
from agentls.cli.stream_output import StreamWriter
from agentls.cli.stream_schema import DOC_PATH, SCHEMA_PATH, main, stale, stream_schema
from agentls.server.observer import LspRunObserver


def test_the_published_schema_and_the_reference_are_up_to_date() -> None:
    assert stale() == [], "run `python -m agentls.cli.stream_schema`"
    assert main(["--check"]) == 0


def test_every_event_type_is_in_the_reference_with_its_version() -> None:
    schema = stream_schema()
    doc = DOC_PATH.read_text(encoding="utf-8")
    for ref in schema["oneOf"]:
        definition = schema["$defs"][ref["$ref"].rsplit("/", 1)[-1]]
        kind = definition["properties"]["type"]["const"]
        assert f"### `{kind}`" in doc
        assert {"type", "version"} <= set(definition["required"])


def test_a_subagents_tool_call_is_nested_under_its_delegate_call() -> None:
    inner = events.ToolFinished(1, 5, "d1/c1", "grep", {"pattern": "x"}, True, "3 matches")
    shaped = RunLines("r1").line(events.SubagentEvent("d1", "explore", inner))
    assert shaped is not None
    wire = shaped.to_wire()
    assert wire["type"] == "tool_end" and wire["parentCallId"] == "d1"
    assert wire["agent"] == "explore" and wire["callId"] == "d1/c1"
    validator = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert not list(validator.iter_errors(wire))
    assert STREAM_EVENTS.validate_python(wire).type == "tool_end"


TOKEN = "ghp_" + "Q1w2E3r4T5y6" * 3


def test_a_secret_streamed_in_two_pieces_is_masked_whole_and_the_order_kept() -> None:
    out = io.StringIO()
    writer = StreamWriter(out)
    writer(events.StreamText(f"the key is {TOKEN[:10]}"))
    writer(events.StreamText(f"{TOKEN[10:]} ok"))
    writer(events.Notice("info", "after the text"))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert TOKEN[:8] not in out.getvalue() and TOKEN[10:] not in out.getvalue()
    assert [line["type"] for line in lines][-1] == "notice"
    streamed = "".join(line["text"] for line in lines if line["type"] == "text")
    assert streamed.startswith("the key is ") and streamed.endswith(" ok")


def test_subagents_start_and_end_are_lines_of_their_own() -> None:
    out = io.StringIO()
    writer = StreamWriter(out)
    writer(events.SubagentStarted("d1", "explore", "find x", "openai/m"))
    writer(events.SubagentFinished("d1", "explore", "weird", "found", 2, total_tokens=9))
    started, ended = (json.loads(line) for line in out.getvalue().splitlines())
    assert started["type"] == "subagent_start" and started["task"] == "find x"
    assert ended["type"] == "subagent_end" and ended["status"] == "failed"
    assert ended["usage"]["total_tokens"] == 9


#: A run's events of every kind a notification carries, a subagent's among them.
EVENTS: list[events.AgentEvent] = [
    events.StatusChanged(RunState.PREPARING, model="openai/m"),
    events.InstructionsRead(["AGENTS.md"]),
    events.StepStarted(1, 5),
    events.ContextMeasured(1, 1200, 8000),
    events.StreamText("Looking at the code. "),
    events.PlanUpdated("fix it", [events.PlanStep("read", "in_progress")]),
    events.ToolStarted(1, 5, "c1", "execute_command", {"command": "ls"}),
    events.CommandStarted("c1", "execute_command", "ls"),
    events.CommandOutput("c1", "a.py\n"),
    events.CommandEnded("c1", 0),
    events.ToolFinished(1, 5, "c1", "execute_command", {"command": "ls"}, True, "ok"),
    events.SubagentStarted("d1", "explore", "find x", "openai/m"),
    events.SubagentEvent("d1", "explore", events.ToolStarted(1, 3, "d1/c1", "grep", {})),
    events.SubagentFinished("d1", "explore", "success", "found x", 2, total_tokens=9),
    events.StepStarted(2, 5),
    events.StreamText("Again "),
    events.StreamRestarted("cut", 2),
    events.ContextCompacted(2, 20, 6, 7000, 2500),
    events.MessagesDelivered(["m1"]),
    events.Notice("warning", "no sandbox"),
    events.StatusChanged(RunState.COMPLETED),
]


def _server_notifications() -> list[tuple[str, dict[str, Any]]]:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def run() -> None:
        observer = LspRunObserver(
            "r1",
            lambda method, params: sent.append((method, params)),
            mirror_commands=True,
            show_notices=True,
        )
        for event in EVENTS:
            observer(event)
            if isinstance(event, events.StreamText):
                observer.flush()  # as its timer would before the next event
        observer.close()

    asyncio.run(run())
    return [(method, params) for method, params in sent if method.startswith("agent/")]


def test_each_line_is_the_params_of_the_notification_the_server_sends_for_it() -> None:
    out = io.StringIO()
    writer = StreamWriter(out)
    writer.lines = RunLines("r1")
    for event in EVENTS:
        writer(event)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    carried = [
        {k: v for k, v in line.items() if k not in ("type", "version")}
        for line in lines
        if line["type"] not in ("step", "usage")
    ]
    notifications = _server_notifications()
    assert carried == [params for _, params in notifications]
    assert {method for method, _ in notifications} >= {
        "agent/status",
        "agent/stream",
        "agent/step",
        "agent/plan",
        "agent/context",
        "agent/instructions",
        "agent/messageDelivered",
        "agent/command",
        "agent/notice",
        "agent/subagent",
    }
    restart = next(line for line in lines if line.get("restart"))
    assert restart["discard"] == len("Again ") and restart["type"] == "text"
    validator = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    for line in lines:
        assert not list(validator.iter_errors(line)), line
