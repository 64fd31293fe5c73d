"""Anthropic models get cache breakpoints on the copy sent; other providers get none."""

from __future__ import annotations

from agentls.agent.llm.cache_breakpoints import needs_breakpoints, with_breakpoints

MESSAGES = [
    {"role": "system", "content": "You are agentls."},
    {"role": "user", "content": "Fix the bug."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
    {"role": "tool", "tool_call_id": "c1", "content": "x = 1"},
]


def test_openai_models_are_sent_unchanged() -> None:
    assert with_breakpoints("openai/gpt-4o", MESSAGES) is MESSAGES
    assert not needs_breakpoints("gpt-5")


def test_anthropic_marks_the_system_prompt_and_the_latest_message() -> None:
    sent = with_breakpoints("anthropic/claude-sonnet-4-5", MESSAGES)
    mark = {"type": "ephemeral"}
    assert sent[0]["content"] == [
        {"type": "text", "text": "You are agentls.", "cache_control": mark}
    ]
    assert sent[-1]["content"] == [{"type": "text", "text": "x = 1", "cache_control": mark}]
    assert sent[1:3] == MESSAGES[1:3]
    # The history itself stays plain, so the next step's prefix is byte-identical.
    assert MESSAGES[0]["content"] == "You are agentls."
    assert MESSAGES[-1]["content"] == "x = 1"
    assert needs_breakpoints("claude-3-5-haiku-latest")
