"""The tools the model can call, by name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentls.agent.errors import DuplicateToolError, ToolNotFoundError
from agentls.agent.tools.base import AnyTool


class ToolRegistry:
    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: AnyTool, *, allow_override: bool = False) -> None:
        if tool.name in self._tools and not allow_override:
            raise DuplicateToolError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> AnyTool:
        try:
            return self._tools[name]
        except KeyError:
            raise ToolNotFoundError(
                f"unknown tool {name!r}; available tools: {', '.join(self.names())}"
            ) from None

    def has_tool(self, name: str) -> bool:
        return name in self._tools

    def names(self) -> list[str]:
        return sorted(self._tools)

    def tools(self) -> list[AnyTool]:
        return [self._tools[name] for name in self.names()]

    def get_schemas(self, allowed: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas; ``allowed`` (None or empty = all) filters them."""
        wanted = set(allowed or ())
        return [tool.schema() for tool in self.tools() if not wanted or tool.name in wanted]
