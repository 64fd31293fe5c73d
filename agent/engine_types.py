"""Structural types of the loop's collaborators, so the loop depends on shapes only."""

from __future__ import annotations

from typing import Any, Protocol

from agentls.agent.llm.models import LLMResponse
from agentls.agent.tools.base import ToolCallResult

Messages = list[dict[str, Any]]


class ContextBuilderLike(Protocol):
    def build_initial(self, system_prompt: str, prompt: str) -> Messages: ...

    def append_tool_results(
        self, messages: Messages, response: LLMResponse, results: list[ToolCallResult]
    ) -> Messages: ...

    def append_assistant_message(self, messages: Messages, content: str) -> Messages: ...

    def append_user_message(self, messages: Messages, content: str) -> Messages: ...


class ContextManagerLike(Protocol):
    async def maybe_compress(
        self, messages: Messages, llm: Any, tools: Messages | None = None
    ) -> Messages: ...

    async def enforce_window(self, messages: Messages) -> Messages: ...

    async def measure(self, messages: Messages) -> tuple[int, int]: ...
