"""``EditorLLM`` over a scripted channel: the ``LLM`` protocol's guarantees with the
editor's models (text streams, tool calls assembled, a cut answer is never one)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentls.agent.llm.editor import (
    ChannelEditorModels,
    EditorAnswerEnd,
    EditorLLM,
    EditorModelInfo,
    EditorPart,
    EditorText,
    EditorToolCall,
    UnavailableEditorLLM,
    llm_for_model,
    split_editor_model,
)
from agentls.agent.llm.errors import LLMBadRequestError, LLMError, LLMStreamInterrupted
from agentls.agent.llm.models import LLMResponse, StreamChunk

MESSAGES = [{"role": "user", "content": "hello there"}]


class Channel:
    def __init__(self, parts: list[EditorPart], *, count: int | None = 3) -> None:
        self.parts = parts
        self.count = count
        self.asked: list[tuple[str, str, list[dict[str, Any]]]] = []
        self.closed = False
        self.counted: list[str] = []

    async def request(
        self, vendor: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> AsyncIterator[EditorPart]:
        self.asked.append((vendor, model, tools))
        try:
            for part in self.parts:
                yield part
        finally:
            self.closed = True

    async def count_tokens(
        self, vendor: str, model: str, messages: list[dict[str, Any]]
    ) -> list[int]:
        if self.count is None:
            raise LLMError("no counter")
        self.counted.extend(m["content"] for m in messages)
        return [self.count] * len(messages)

    async def models(self) -> list[EditorModelInfo]:
        return [EditorModelInfo("copilot", "gpt-4o", "GPT-4o", "gpt-4o", 64000)]


async def collect(llm: Any) -> list[Any]:
    return [item async for item in llm.completion_stream(MESSAGES, [{"type": "function"}])]


async def test_text_streams_then_one_response_with_the_tool_calls() -> None:
    call = EditorToolCall("c1", "write_file", {"path": "a.md", "content": "x"})
    channel = Channel([EditorText("one "), EditorText("two"), call, EditorAnswerEnd()])
    items = await collect(EditorLLM(channel, "editor/copilot/gpt-4o"))

    assert [i.data for i in items if isinstance(i, StreamChunk)] == ["one ", "two"]
    response = items[-1]
    assert isinstance(response, LLMResponse)
    assert sum(isinstance(i, LLMResponse) for i in items) == 1
    assert response.content == "one two"
    assert response.finish_reason == "tool_calls"
    [tool] = response.tool_calls
    assert (tool.id, tool.name, tool.arguments) == ("c1", "write_file", call.arguments)
    assert channel.asked == [("copilot", "gpt-4o", [{"type": "function"}])]
    assert channel.closed


async def test_an_answer_cut_before_its_end_is_never_an_answer() -> None:
    channel = Channel([EditorText("half an ans")])
    llm = EditorLLM(channel, "editor/copilot/gpt-4o")
    seen: list[Any] = []
    with pytest.raises(LLMStreamInterrupted) as caught:
        async for item in llm.completion_stream(MESSAGES):
            seen.append(item)
    assert not any(isinstance(i, LLMResponse) for i in seen)
    assert caught.value.partial_text == "half an ans"
    with pytest.raises(LLMStreamInterrupted):
        await llm.completion(MESSAGES)


async def test_the_whole_answer_at_once() -> None:
    channel = Channel([EditorText("done"), EditorAnswerEnd("stop", {"total_tokens": 5})])
    response = await EditorLLM(channel, "editor/v/m").completion(MESSAGES)
    assert (response.content, response.finish_reason) == ("done", "stop")
    assert response.usage == {"total_tokens": 5}


async def test_tokens_by_the_models_counter_each_message_once_or_an_estimate() -> None:
    channel = Channel([], count=42)
    llm = EditorLLM(channel, "editor/v/m")
    assert await llm.count_tokens(MESSAGES) == 42
    longer = [*MESSAGES, {"role": "assistant", "content": "hi"}]
    assert await llm.count_tokens(longer) == 84
    assert channel.counted == ["hello there", "hi"]  # the first message was asked once
    assert await EditorLLM(Channel([], count=None), "editor/v/m").count_tokens(MESSAGES) > 0


def test_model_ids() -> None:
    assert split_editor_model("editor/copilot/gpt-4o") == ("copilot", "gpt-4o")
    assert split_editor_model("editor/acme/org/model-1") == ("acme", "org/model-1")
    for bad in ("editor/copilot", "editor//x", "openai/gpt-4o"):
        with pytest.raises(LLMBadRequestError, match="editor/<vendor>/<id>"):
            split_editor_model(bad)


async def test_where_no_editor_lends_its_models_the_call_says_why() -> None:
    sentinel: Any = object()
    assert llm_for_model("openai/gpt-4o", editor=None, otherwise=lambda: sentinel) is sentinel
    llm = llm_for_model("editor/copilot/gpt-4o", editor=None, otherwise=lambda: sentinel)
    assert isinstance(llm, UnavailableEditorLLM)
    with pytest.raises(LLMBadRequestError, match="only available in an editor that offers"):
        await collect(llm)
    with pytest.raises(LLMBadRequestError, match="editor/copilot/gpt-4o"):
        await llm.completion(MESSAGES)
    assert isinstance(
        llm_for_model("editor/copilot/gpt-4o", editor=Channel([]), otherwise=lambda: sentinel),
        EditorLLM,
    )


async def test_the_listing_names_each_model_by_its_editor_id() -> None:
    [model] = await ChannelEditorModels(Channel([])).list()
    assert model.id == "editor/copilot/gpt-4o"
    assert model.source == "editor"
    assert model.context_window == 64000
    assert "GPT-4o" in model.label
