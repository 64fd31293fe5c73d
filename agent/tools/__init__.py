"""Built-in tools and the registry that holds them."""

from __future__ import annotations

from agent.tools.base import Tool, ToolContext, ToolResult
from agent.tools.registry import ToolRegistry


def builtin_tools() -> list[Tool]:
    """Every built-in tool (MCP tools are added per run by agent.mcp)."""
    from agent.tools.edit import ApplyPatchTool, EditFileTool
    from agent.tools.exec import ExecuteCommandTool, PythonExecutorTool
    from agent.tools.files import DeleteFileTool, ListFilesTool, ReadFileTool, WriteFileTool
    from agent.tools.interaction import AskUserTool, UpdatePlanTool
    from agent.tools.search import FindFilesTool, GrepTool, SearchCodeTool

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


__all__ = ["Tool", "ToolContext", "ToolRegistry", "ToolResult", "build_registry", "builtin_tools"]
