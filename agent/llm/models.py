"""Provider-neutral model messages: what the loop keeps, whatever the provider."""

from __future__ import annotations

from typing import Any, Literal

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


class Usage(BaseModel):
    """Token counts of one call, or the sum of several."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, other: Usage | dict[str, Any] | None) -> Usage:
        if other is None:
            return self
        if isinstance(other, dict):
            other = Usage(
                prompt_tokens=int(other.get("prompt_tokens") or 0),
                completion_tokens=int(other.get("completion_tokens") or 0),
                total_tokens=int(other.get("total_tokens") or 0),
            )
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )


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
