"""Prompt-cache hits reach the run's usage, whichever way the provider reports them."""

from __future__ import annotations

from agentls.agent.llm.models import Usage
from agentls.agent.llm.stream import normalize_usage


def test_openai_nested_cached_tokens_are_kept() -> None:
    usage = normalize_usage(
        {
            "prompt_tokens": 1000,
            "completion_tokens": 10,
            "prompt_tokens_details": {"cached_tokens": 896},
        }
    )
    assert usage == {
        "prompt_tokens": 1000,
        "completion_tokens": 10,
        "total_tokens": 1010,
        "cached_tokens": 896,
    }


def test_anthropic_cache_reads_are_kept() -> None:
    usage = normalize_usage(
        {"prompt_tokens": 500, "completion_tokens": 5, "cache_read_input_tokens": 400}
    )
    assert usage is not None and usage["cached_tokens"] == 400


def test_usage_sums_cached_tokens_over_calls() -> None:
    assert "cached_tokens" not in (normalize_usage({"prompt_tokens": 1}) or {})
    total = Usage().add(
        normalize_usage({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 0}})
    )
    total = total.add(
        normalize_usage({"prompt_tokens": 120, "prompt_tokens_details": {"cached_tokens": 96}})
    )
    total = total.add({"prompt_tokens": 130, "cache_read_input_tokens": 110})
    assert (total.prompt_tokens, total.cached_tokens) == (350, 206)
