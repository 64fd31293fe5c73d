"""The published schema of ``--output-format stream-json`` and the reference in
docs/headless.md are what the models give, and the engine's events map onto it."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator

from agentls.agent import events
from agentls.agent.event_stream import STREAM_EVENTS, stream_event
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
