"""The adapter over real litellm against the scripted server: successful calls."""

from __future__ import annotations

import asyncio

from llm_helpers import TOOLS, USER, MakeLLM, collect

from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    ScriptedToolCall,
    Turn,
    call,
    length,
    text,
    tool_call,
    tool_calls,
)


async def test_text_streams_in_order_then_one_final_response(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    scripted.add(name, text("The quick brown fox jumps over the lazy dog.", chunk_size=5))
    texts, final = await collect(llm.completion_stream(USER))
    assert len(texts) > 3
    assert "".join(texts) == "The quick brown fox jumps over the lazy dog."
    assert final.content == "The quick brown fox jumps over the lazy dog."
    assert final.tool_calls == [] and final.finish_reason == "stop"


async def test_one_tool_call_split_across_chunks(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    args = {"path": "src/app.py", "content": "print('hello world')\n" * 3}
    scripted.add(name, tool_call("write_file", args, id="call_w1"))
    texts, final = await collect(llm.completion_stream(USER, TOOLS))
    assert texts == []  # tool-call deltas are assembled, never streamed
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("call_w1", "write_file", args)
    ]
    assert final.finish_reason == "tool_calls"


async def test_several_interleaved_tool_calls_with_text(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    scripted.add(
        name,
        tool_calls(
            call("read_file", {"path": "a.py"}),
            call("search", {"pattern": "def main", "path": "src"}),
            call("read_file", {"path": "b.py"}),
            text="I will read both files.",
            interleave=True,
        ),
    )
    texts, final = await collect(llm.completion_stream(USER, TOOLS))
    assert "".join(texts) == "I will read both files."
    assert final.content == "I will read both files."
    assert [(c.name, c.arguments) for c in final.tool_calls] == [
        ("read_file", {"path": "a.py"}),
        ("search", {"pattern": "def main", "path": "src"}),
        ("read_file", {"path": "b.py"}),
    ]
    assert len({c.id for c in final.tool_calls}) == 3


async def test_malformed_arguments_give_a_parse_error(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    scripted.add(name, tool_call("write_file", '{"path": "a.py", "content": "unterminated'))
    _, final = await collect(llm.completion_stream(USER, TOOLS))
    (bad,) = final.tool_calls
    assert bad.name == "write_file" and bad.arguments == {}
    assert bad.raw_arguments == '{"path": "a.py", "content": "unterminated'
    assert bad.parse_error and "not valid JSON" in bad.parse_error


async def test_missing_tool_call_ids_are_generated(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    no_id = Turn(
        tool_calls=[
            ScriptedToolCall(name="read_file", arguments={"path": "a"}, omit_id=True),
            ScriptedToolCall(name="read_file", arguments={"path": "b"}, omit_id=True),
        ]
    )
    scripted.add(name, no_id, no_id)
    _, streamed = await collect(llm.completion_stream(USER, TOOLS))
    whole = await llm.completion(USER, TOOLS)
    for response in (streamed, whole):
        ids = [c.id for c in response.tool_calls]
        assert all(ids) and len(set(ids)) == 2
        assert [c.arguments for c in response.tool_calls] == [{"path": "a"}, {"path": "b"}]


async def test_finish_reason_length_and_usage(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    usage = {"prompt_tokens": 120, "completion_tokens": 4096, "total_tokens": 4216}
    scripted.add(name, length("and then the", usage=usage))
    _, final = await collect(llm.completion_stream(USER))
    assert final.finish_reason == "length"
    assert final.content == "and then the"
    assert final.usage == usage
    (request,) = scripted.requests_for(name)
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}


async def test_non_streaming_completion(make_llm: MakeLLM, scripted: ScriptedModelServer) -> None:
    llm, name = make_llm(stream=False)
    scripted.add(
        name,
        tool_calls(
            call("read_file", {"path": "a.py"}, id="c1"),
            text="Reading.",
            usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        ),
        text("done"),
    )
    first = await llm.completion(USER, TOOLS)
    assert first.content == "Reading."
    assert [(c.id, c.arguments) for c in first.tool_calls] == [("c1", {"path": "a.py"})]
    assert first.usage == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    second = await llm.completion(USER)
    assert second.content == "done" and second.finish_reason == "stop"
    assert second.usage is not None and second.usage["total_tokens"] > 0
    assert not scripted.requests_for(name)[0].body.get("stream")


async def test_the_server_records_what_the_model_was_shown(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    scripted.add(name, text("ok"))
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Fix the bug in app.py"},
    ]
    await collect(llm.completion_stream(messages, TOOLS))
    (request,) = scripted.requests_for(f"openai/{name}")
    assert request.path == "/v1/chat/completions"
    assert request.model == name
    assert request.messages == messages
    assert [t["function"]["name"] for t in request.body["tools"]] == [
        "read_file",
        "write_file",
        "search",
    ]


async def test_concurrent_runs_use_their_own_queues(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    alice, _ = make_llm(name="alice")
    bob, _ = make_llm(name="bob")
    scripted.add("alice", text("from alice", chunk_delay=0.01))
    scripted.add("bob", text("from bob", chunk_delay=0.01))
    (_, a), (_, b) = await asyncio.gather(
        collect(alice.completion_stream(USER)), collect(bob.completion_stream(USER))
    )
    assert (a.content, b.content) == ("from alice", "from bob")


async def test_responder_turns_see_the_request(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm()
    scripted.add(name, lambda body: text(f"you said {body['messages'][-1]['content']}"))
    _, final = await collect(llm.completion_stream([{"role": "user", "content": "ping"}]))
    assert final.content == "you said ping"
