"""Built-in tools and the registry that holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentls.agent.tools.base import AnyTool, RunContext, Tool, ToolContext, ToolResult
from agentls.agent.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig


def builtin_tools(config: AppConfig | None = None) -> list[AnyTool]:
    """Every built-in tool (MCP tools are added per run by agent.mcp); ``config`` tunes
    what their descriptions say (which patch format apply_patch shows first)."""
    from agentls.agent.tools.delegate import DelegateTool
    from agentls.agent.tools.edit import ApplyPatchTool, EditFileTool, lead_patch_format
    from agentls.agent.tools.exec import ExecuteCommandTool, PythonExecutorTool
    from agentls.agent.tools.files import DeleteFileTool, ListFilesTool, ReadFileTool, WriteFileTool
    from agentls.agent.tools.interaction import AskUserTool, UpdatePlanTool
    from agentls.agent.tools.navigate import NavigateCodeTool
    from agentls.agent.tools.problems import GetProblemsTool
    from agentls.agent.tools.rename import RenameSymbolTool
    from agentls.agent.tools.search import FindFilesTool, GrepTool, SearchCodeTool
    from agentls.agent.tools.skills import LoadSkillTool
    from agentls.agent.tools.symbols import FindReferencesTool, FindSymbolTool

    tools: list[AnyTool] = [
        ReadFileTool(),
        WriteFileTool(),
        DeleteFileTool(),
        ListFilesTool(),
        EditFileTool(),
        ApplyPatchTool(
            lead_patch_format(config.llm.patch_format, config.llm.model)
            if config is not None
            else "unified"
        ),
        SearchCodeTool(),
        GrepTool(),
        FindFilesTool(),
        FindSymbolTool(),
        FindReferencesTool(),
        NavigateCodeTool(),
        RenameSymbolTool(),
        GetProblemsTool(),
        ExecuteCommandTool(),
        PythonExecutorTool(),
        UpdatePlanTool(),
        AskUserTool(),
        LoadSkillTool(),
    ]
    if config is None or config.subagents.enabled:
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
