"""The ``LLM`` protocol: the one shape of a chat model that the agent depends on.

The loop streams through it, the context manager summarises and the evaluator judges
through its ``completion``, the run counts tokens with ``count_tokens``. Test doubles
implement only what the code under test calls.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol, runtime_checkable

from agentls.agent.llm.model_facts import ModelFacts
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart


@runtime_checkable
class LLM(Protocol):
    """A chat model: one answer at a time, streamed or whole.

    Errors are ``agent.llm.errors.LLMError`` subclasses, already retried where that
    made sense.
    """

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        """The whole answer at once."""
        ...

    def completion_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamChunk | StreamRestart | LLMResponse]:
        """StreamChunks of text as they come, then exactly one LLMResponse, last.

        Tool calls are not streamed: they arrive assembled in the final response. A
        stream cut before its end is retried; a ``StreamRestart`` then says the text
        streamed so far is void. A response is only ever one the provider finished.
        """
        ...

    async def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        """How many tokens ``messages`` cost for this model (an estimate if unknown)."""
        ...


@runtime_checkable
class CheckedLLM(Protocol):
    """An LLM that can tell, before any call, that its model cannot be called (no key,
    an unknown model, no tool calling, its local server down): the run asks first."""

    async def check(self) -> ModelFacts | None:
        """What is known of the model; ``LLMSetupError`` when it cannot be called."""
        ...
