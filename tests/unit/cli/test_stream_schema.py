"""The published schema of ``--output-format stream-json`` and the reference in
docs/headless.md are what the models give, and the engine's events map onto it."""

from __future__ import annotations

import io
import json

from jsonschema import Draft202012Validator

from agentls.agent import events
from agentls.agent.event_stream import STREAM_EVENTS, stream_event
from agentls.cli.stream_output import StreamWriter
from agentls.cli.stream_schema import DOC_PATH, SCHEMA_PATH, main, stale, stream_schema


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
    shaped = stream_event(events.SubagentEvent("d1", "explore", inner))
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
    assert ended["totalTokens"] == 9
