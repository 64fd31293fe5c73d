"""Built-in tools and the registry that holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentls.agent.tools.base import AnyTool, RunContext, Tool, ToolContext, ToolResult
from agentls.agent.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig


def builtin_tools(config: AppConfig | None = None) -> list[AnyTool]:
    """Every built-in tool (MCP tools are added per run by agent.mcp); ``config`` tunes
    what their descriptions say (which patch format apply_patch shows first). All but
    ``delegate`` import their modules at their first call (``agent.tools.catalog``)."""
    from agentls.agent.tools.catalog import lazy_tools
    from agentls.agent.tools.patch_format import lead_patch_format

    lead = "unified"
    if config is not None:
        lead = lead_patch_format(config.llm.patch_format, config.llm.model)
    tools = lazy_tools({"ApplyPatchTool": lead})
    if config is None or config.subagents.enabled:
        from agentls.agent.tools.delegate import DelegateTool

        tools.append(DelegateTool(config))
    return tools


def build_registry(config: AppConfig | None = None) -> ToolRegistry:
    return ToolRegistry(builtin_tools(config))


__all__ = [
    "AnyTool",
    "RunContext",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "build_registry",
    "builtin_tools",
]
