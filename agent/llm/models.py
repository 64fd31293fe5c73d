"""Provider-neutral model messages: what the loop keeps, whatever the provider."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field


class ToolCall(BaseModel):
    """A tool call the model asked for; ``arguments`` already parsed from JSON.

    When the model's argument string is not valid JSON, ``arguments`` is empty and
    ``parse_error`` says why, so the engine can answer with a tool error the model
    can act on instead of crashing the run.
    """

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    parse_error: str | None = None


class CallLike(Protocol):
    """A requested tool call: the model's ToolCall or one read back from a session."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> dict[str, Any]: ...


def assistant_tool_calls_message(content: str | None, calls: Sequence[CallLike]) -> dict[str, Any]:
    """The OpenAI-format assistant message that asks for ``calls``."""
    return {
        "role": "assistant",
        "content": content or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    # The parsed arguments, never the raw string: some providers'
                    # adapters re-parse the history and fail on invalid JSON. A
                    # parse error reaches the model through the tool result instead.
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in calls
        ],
    }


class Usage(BaseModel):
    """Token counts of one call, or the sum of several; ``cost`` in US dollars when the
    price of every call that used tokens is known (litellm's price list), else None.

    ``cached_tokens`` is the part of ``prompt_tokens`` the provider served from its
    prompt cache (OpenAI's ``prompt_tokens_details.cached_tokens``, Anthropic's
    ``cache_read_input_tokens``), which is billed at a fraction of the price.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    # An unknown price is left out rather than sent as null: clients show what is there.
    cost: float | None = Field(default=None, exclude_if=lambda cost: cost is None)
    cached_tokens: int = Field(0, description="Prompt tokens read from the provider's cache.")

    def add(self, other: Usage | dict[str, Any] | None) -> Usage:
        if other is None:
            return self
        if isinstance(other, dict):
            cost = other.get("cost")
            other = Usage(
                prompt_tokens=int(other.get("prompt_tokens") or 0),
                completion_tokens=int(other.get("completion_tokens") or 0),
                total_tokens=int(other.get("total_tokens") or 0),
                cost=float(cost) if isinstance(cost, int | float) else None,
                cached_tokens=cached_prompt_tokens(other),
            )
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cost=_sum_cost(self, other),
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


def _sum_cost(a: Usage, b: Usage) -> float | None:
    # A part without tokens costs nothing; a part with tokens but no price makes the sum
    # unknown (a partial sum would understate what the run cost).
    if a.cost is None and a.total_tokens == 0:
        return b.cost
    if b.cost is None and b.total_tokens == 0:
        return a.cost
    if a.cost is None or b.cost is None:
        return None
    return a.cost + b.cost


def cached_prompt_tokens(usage: dict[str, Any]) -> int:
    """Cached prompt tokens in a provider's usage, whichever way it reports them."""
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and details.get("cached_tokens"):
        return int(details["cached_tokens"])
    return int(usage.get("cached_tokens") or usage.get("cache_read_input_tokens") or 0)


class LLMResponse(BaseModel):
    """The model's answer, normalised whatever the provider."""

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str = "stop"
    usage: dict[str, Any] | None = None


class StreamChunk(BaseModel):
    """A piece of streamed text."""

    type: Literal["content"] = "content"
    data: str


class StreamRestart(BaseModel):
    """The stream was cut before its end and the call starts again: the text streamed
    since the call began is void, and the answer is streamed anew after this."""

    type: Literal["restart"] = "restart"
    reason: str
    attempt: int = Field(description="The attempt that starts now (2 for the first retry).")
