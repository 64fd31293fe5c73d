"""Built-in tools and the registry that holds them."""

from __future__ import annotations

from agentls.agent.tools.base import AnyTool, RunContext, Tool, ToolContext, ToolResult
from agentls.agent.tools.registry import ToolRegistry


def builtin_tools() -> list[AnyTool]:
    """Every built-in tool (MCP tools are added per run by agent.mcp)."""
    from agentls.agent.tools.edit import ApplyPatchTool, EditFileTool
    from agentls.agent.tools.exec import ExecuteCommandTool, PythonExecutorTool
    from agentls.agent.tools.files import DeleteFileTool, ListFilesTool, ReadFileTool, WriteFileTool
    from agentls.agent.tools.interaction import AskUserTool, UpdatePlanTool
    from agentls.agent.tools.search import FindFilesTool, GrepTool, SearchCodeTool

    return [
        ReadFileTool(),
        WriteFileTool(),
        DeleteFileTool(),
        ListFilesTool(),
        EditFileTool(),
        ApplyPatchTool(),
        SearchCodeTool(),
        GrepTool(),
        FindFilesTool(),
        ExecuteCommandTool(),
        PythonExecutorTool(),
        UpdatePlanTool(),
        AskUserTool(),
    ]


def build_registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


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
