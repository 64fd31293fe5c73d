"""Token counts: litellm's numbers, asked once per message, with an estimate when no
counter answers; the provider's own reports where the calls do not go through litellm."""

from __future__ import annotations

from typing import Any

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm._litellm import import_litellm_sync
from agentls.agent.llm.adapter import LiteLLMAdapter, adapter_for
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.llm.tokens import (
    NOT_COUNTED,
    CountMemo,
    MessageCounts,
    estimate_tokens,
    estimate_tools,
    split_counts,
)

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent. " * 20},
    {"role": "user", "content": "fix the bug in app.py, 日本語 too — “quoted”"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "app.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "def f():\n    return 1\n" * 30},
    {"role": "user", "content": [{"type": "text", "text": "and <|endoftext|> stays text"}]},
]


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-5-mini", "o3", "gpt-4", "claude-3-5-sonnet"])
async def test_counted_per_message_the_total_is_litellms(model: str) -> None:
    litellm = import_litellm_sync()
    expected = litellm.token_counter(model=model, messages=CONVERSATION)
    llm = LiteLLMAdapter(LLMConfig(model=f"openai/{model}"))
    assert await llm.count_tokens(CONVERSATION) == expected
    # any part of it too, from the same per-message counts
    assert await llm.count_tokens(CONVERSATION[1:4]) == litellm.token_counter(
        model=model, messages=CONVERSATION[1:4]
    )


def test_split_counts_separates_the_priming() -> None:
    def chat_formula(messages: list[dict[str, Any]]) -> int:  # 3 per reply, 4 + len per message
        return 3 + sum(4 + len(str(m.get("content"))) for m in messages)

    counted = split_counts(chat_formula, CONVERSATION[:2])
    assert counted.priming == 3
    assert counted.priming + sum(counted.counts) == chat_formula(CONVERSATION[:2])


async def test_a_memo_asks_only_for_messages_it_has_not_counted() -> None:
    asked: list[int] = []

    async def fetch(messages: list[dict[str, Any]]) -> MessageCounts:
        asked.append(len(messages))
        return MessageCounts(3, [10] * len(messages))

    memo = CountMemo(fetch)
    assert await memo.total(CONVERSATION[:3]) == 3 + 30
    assert await memo.total(CONVERSATION) == 3 + 50
    assert await memo.total(CONVERSATION[2:]) == 3 + 30
    # by content, not identity: an equal copy is already counted
    assert await memo.total([dict(CONVERSATION[0])]) == 3 + 10
    assert asked == [3, 2]


async def test_a_failed_count_is_an_estimate_and_is_not_remembered() -> None:
    answers: list[BaseException | MessageCounts] = [
        RuntimeError("the worker is gone"),
        MessageCounts(3, [7] * len(CONVERSATION)),
    ]

    async def fetch(messages: list[dict[str, Any]]) -> MessageCounts:
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    memo = CountMemo(fetch)
    assert await memo.total(CONVERSATION) == estimate_tokens(CONVERSATION)
    assert await memo.total(CONVERSATION) == 3 + 7 * len(CONVERSATION)


async def test_an_answer_of_the_wrong_length_is_an_estimate() -> None:
    async def fetch(messages: list[dict[str, Any]]) -> MessageCounts:
        return MessageCounts(3, [1])

    assert await CountMemo(fetch).total(CONVERSATION) == estimate_tokens(CONVERSATION)


@pytest.mark.parametrize(
    "frame", [{}, {"priming": 3}, {"priming": "3", "counts": [1]}, {"priming": 3, "counts": 5}]
)
def test_malformed_counts_from_the_wire_are_refused(frame: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="malformed token counts"):
        MessageCounts.from_wire(frame)


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the workspace. " * 10,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def test_counts_without_an_exact_counter_cross_the_wire() -> None:
    assert MessageCounts.from_wire(NOT_COUNTED.to_wire()) == NOT_COUNTED
    assert MessageCounts.from_wire({"priming": 3, "counts": [1]}).exact


async def test_without_an_exact_counter_the_providers_report_anchors_the_count() -> None:
    asked: list[int] = []

    async def fetch(messages: list[dict[str, Any]]) -> MessageCounts:
        asked.append(len(messages))
        return NOT_COUNTED

    memo = CountMemo(fetch)
    sent = CONVERSATION[:2]
    # Before any answer: the estimate.
    assert await memo.total(sent) == estimate_tokens(sent)
    estimated = estimate_tokens(sent) + estimate_tools(TOOLS)
    memo.answered(sent, TOOLS, {"prompt_tokens": round(estimated * 1.5), "completion_tokens": 9})
    # What was sent costs what the provider said; what came after, its estimate scaled alike.
    assert await memo.total(sent) == round(estimated * 1.5)
    tail = estimate_tokens(CONVERSATION[2:])
    assert await memo.total(CONVERSATION) == round(estimated * 1.5) + round(
        tail * (round(estimated * 1.5) / estimated)
    )
    # A list that does not extend what was sent (a compaction rebuilt it): the whole request,
    # tools included, estimated and scaled.
    rebuilt = [CONVERSATION[0], *CONVERSATION[3:]]
    scale = round(estimated * 1.5) / estimated
    assert await memo.total(rebuilt) == round(
        scale * (estimate_tokens(rebuilt) + estimate_tools(TOOLS))
    )
    assert asked == [2]  # once told there is no exact counter, it is not asked again


@pytest.mark.parametrize(
    "usage",
    [None, {}, {"prompt_tokens": 0}, {"prompt_tokens": "12"}, {"prompt_tokens": True}],
)
async def test_a_report_without_a_prompt_count_leaves_the_estimate(
    usage: dict[str, Any] | None,
) -> None:
    async def fetch(messages: list[dict[str, Any]]) -> MessageCounts:
        return NOT_COUNTED

    memo = CountMemo(fetch)
    memo.answered(CONVERSATION[:2], TOOLS, usage)
    assert await memo.total(CONVERSATION) == estimate_tokens(CONVERSATION)


async def test_a_report_far_from_any_tokenizer_scales_new_messages_within_bounds() -> None:
    async def fetch(messages: list[dict[str, Any]]) -> MessageCounts:
        return NOT_COUNTED

    memo = CountMemo(fetch)
    memo.answered(CONVERSATION[:2], None, {"prompt_tokens": 1})  # a server that makes it up
    tail = estimate_tokens(CONVERSATION[2:])
    assert await memo.total(CONVERSATION) == 1 + round(0.5 * tail)
    memo.answered(CONVERSATION[:2], None, {"prompt_tokens": 10**6})
    assert await memo.total(CONVERSATION) == 10**6 + round(2.0 * tail)


async def test_an_openai_compatible_model_is_counted_from_its_reports_without_litellm() -> None:
    with ScriptedModelServer() as server:
        llm = adapter_for(LLMConfig(model="openai/m", api_base=server.api_base))
        assert not llm.uses_litellm
        sent = CONVERSATION[:2]
        server.add(
            "m",
            tool_call("read_file", {"path": "app.py"}, usage={"prompt_tokens": 4321}),
            text("done", usage={"prompt_tokens": 5000, "completion_tokens": 2}),
        )
        await llm.completion(sent, TOOLS)
        assert await llm.count_tokens(sent) == 4321
        assert await llm.count_tokens(CONVERSATION) > 4321
        items = [item async for item in llm.completion_stream(CONVERSATION, TOOLS)]
        assert items
        assert await llm.count_tokens(CONVERSATION) == 5000
    assert (await llm.count_each(CONVERSATION)) == NOT_COUNTED
