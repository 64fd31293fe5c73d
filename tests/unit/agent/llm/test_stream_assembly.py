"""StreamAssembler and response parsing on provider-shaped chunks (no network)."""

from __future__ import annotations

from typing import Any

from agentls.agent.llm.stream import StreamAssembler, parse_tool_call, response_from_completion


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def call_delta(index: int | None, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"function": {}}
    if index is not None:
        entry["index"] = index
    if "id" in fields:
        entry["id"] = fields["id"]
    if "name" in fields:
        entry["function"]["name"] = fields["name"]
    if "args" in fields:
        entry["function"]["arguments"] = fields["args"]
    return {"tool_calls": [entry]}


def test_interleaved_calls_are_assembled_by_index() -> None:
    asm = StreamAssembler()
    for c in [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me look."}),
        chunk(call_delta(0, id="a", name="read_file", args="")),
        chunk(call_delta(1, id="b", name="search", args='{"q"')),
        chunk(call_delta(0, args='{"path": ')),
        chunk(call_delta(1, args=': "x"}')),
        chunk(call_delta(0, args='"a.py"}')),
        chunk({}, "tool_calls"),
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}},
    ]:
        asm.add(c)
    response = asm.finish()
    assert response.content == "Let me look."
    assert [(t.id, t.name, t.arguments) for t in response.tool_calls] == [
        ("a", "read_file", {"path": "a.py"}),
        ("b", "search", {"q": "x"}),
    ]
    assert response.finish_reason == "tool_calls"
    assert response.usage == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}


def test_deltas_without_index_continue_the_last_call() -> None:
    asm = StreamAssembler()
    asm.add(chunk(call_delta(None, id="a", name="read_file", args='{"pa')))
    asm.add(chunk(call_delta(None, args='th": "x"}')))
    asm.add(chunk(call_delta(None, id="b", name="search", args="{}")))
    calls = asm.finish().tool_calls
    assert [(c.id, c.arguments) for c in calls] == [("a", {"path": "x"}), ("b", {})]


def test_bad_json_becomes_a_parse_error_not_an_exception() -> None:
    call = parse_tool_call("c1", "write_file", '{"path": "a.py", "content": "x')
    assert call.arguments == {}
    assert call.raw_arguments == '{"path": "a.py", "content": "x'
    assert call.parse_error is not None and "not valid JSON" in call.parse_error


def test_arguments_that_are_not_an_object_are_refused() -> None:
    call = parse_tool_call("c1", "search", "[1, 2]")
    assert call.arguments == {}
    assert call.parse_error == "arguments must be a JSON object, got list"


def test_empty_arguments_mean_no_arguments_and_missing_ids_are_generated() -> None:
    call = parse_tool_call(None, "list_files", "")
    assert call.arguments == {} and call.parse_error is None
    assert call.id.startswith("call_")
    assert parse_tool_call(None, "x", "").id != call.id


def test_a_stream_without_finish_reason_is_not_finished() -> None:
    asm = StreamAssembler()
    asm.add(chunk({"content": "half"}))
    assert not asm.finished
    asm.add(chunk({}, "stop"))
    assert asm.finished


def test_non_streamed_completion_with_bad_and_parsed_arguments() -> None:
    response = response_from_completion(
        {
            "choices": [
                {
                    "finish_reason": "tool_calls",
                    "message": {
                        "content": None,
                        "tool_calls": [
                            {"id": "a", "function": {"name": "x", "arguments": "{oops"}},
                            {"function": {"name": "y", "arguments": {"k": 1}}},
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2},
        }
    )
    first, second = response.tool_calls
    assert first.parse_error and first.raw_arguments == "{oops"
    assert second.arguments == {"k": 1} and second.id.startswith("call_")
    assert response.usage == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
