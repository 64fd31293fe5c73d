"""Built-in tools and the registry that holds them."""

from __future__ import annotations

from agent.tools.base import Tool, ToolContext, ToolResult
from agent.tools.registry import ToolRegistry


def builtin_tools() -> list[Tool]:
    """Every built-in tool. Imported lazily so optional families load only when used."""
    from agent.tools.edit import ApplyPatchTool, EditFileTool
    from agent.tools.files import DeleteFileTool, ListFilesTool, ReadFileTool, WriteFileTool

    tools: list[Tool] = [
        ReadFileTool(),
        WriteFileTool(),
        DeleteFileTool(),
        ListFilesTool(),
        EditFileTool(),
        ApplyPatchTool(),
    ]
    try:
        from agent.tools.search import FindFilesTool, GrepTool, SearchCodeTool
    except ImportError:  # pragma: no cover - the search family is part of the package
        pass
    else:
        tools += [SearchCodeTool(), GrepTool(), FindFilesTool()]
    for module_name, class_names in _OPTIONAL.items():
        try:
            module = __import__(module_name, fromlist=class_names)
        except ImportError:
            continue
        tools += [getattr(module, name)() for name in class_names if hasattr(module, name)]
    return tools


_OPTIONAL: dict[str, list[str]] = {
    "agent.tools.exec": ["ExecuteCommandTool", "PythonExecutorTool"],
    "agent.tools.interaction": ["UpdatePlanTool", "AskUserTool"],
}


def build_registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


__all__ = ["Tool", "ToolContext", "ToolRegistry", "ToolResult", "build_registry", "builtin_tools"]
