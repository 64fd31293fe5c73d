"""Token counts: litellm's numbers, asked once per message, with an estimate when no
counter answers."""

from __future__ import annotations

from typing import Any

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm._litellm import import_litellm_sync
from agentls.agent.llm.adapter import LiteLLMAdapter
from agentls.agent.llm.tokens import CountMemo, MessageCounts, estimate_tokens, split_counts

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
