"""Built-in tools and the registry that holds them."""

from __future__ import annotations

from agentls.agent.tools.base import Tool, ToolContext, ToolResult
from agentls.agent.tools.registry import ToolRegistry


def builtin_tools() -> list[Tool]:
    """Every built-in tool (MCP tools are added per run by agent.mcp)."""
    from agentls.agent.tools.edit import ApplyPatchTool, EditFileTool
    from agentls.agent.tools.exec import ExecuteCommandTool, PythonExecutorTool
    from agentls.agent.tools.files import DeleteFileTool, ListFilesTool, ReadFileTool, WriteFileTool
    from agentls.agent.tools.interaction import AskUserTool, UpdatePlanTool
    from agentls.agent.tools.search import FindFilesTool, GrepTool, SearchCodeTool
    from agentls.agent.tools.symbols import FindReferencesTool, FindSymbolTool

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
        FindSymbolTool(),
        FindReferencesTool(),
        ExecuteCommandTool(),
        PythonExecutorTool(),
        UpdatePlanTool(),
        AskUserTool(),
    ]


def build_registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


__all__ = ["Tool", "ToolContext", "ToolRegistry", "ToolResult", "build_registry", "builtin_tools"]
