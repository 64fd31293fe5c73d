"""The tool names of other agents' files, as agentls's tools.

Claude Code's subagents (``.claude/agents/*.md``) name its tools (``Read``, ``Grep``,
``Bash``...) and MCP tools as ``mcp__server__tool``; Copilot's custom agents
(``.github/agents/*.agent.md``) name tool sets (``read``, ``edit``, ``search``,
``execute``...), VS Code's tools (``codebase``, ``editFiles``, ``runCommands``, or
namespaced: ``search/codebase``, ``edit/editFiles``), and MCP tools as ``server/tool``.
``map_tools`` turns such a list into agentls's names; agentls's own names pass through.
A name with no counterpart here (a web search, a browser) is left out and said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from agentls.agent.mcp.names import prefixed_name

#: Every tool an agent file may name by agentls's own name: the built-in tools, the
#: subagent and skill tools, and the tools that reach MCP tools past the schema limit.
AGENTLS_TOOLS = (
    "read_file",
    "write_file",
    "delete_file",
    "list_files",
    "edit_file",
    "apply_patch",
    "search_code",
    "grep",
    "find_files",
    "find_symbol",
    "find_references",
    "get_problems",
    "navigate_code",
    "rename_symbol",
    "execute_command",
    "python_executor",
    "update_plan",
    "ask_user",
    "delegate",
    "load_skill",
    "list_mcp_tools",
    "describe_mcp_tool",
    "call_mcp_tool",
)

_READ = ("read_file",)
_EDIT = ("edit_file", "apply_patch", "write_file")
_SEARCH = ("grep", "search_code", "find_files", "list_files")
_RUN = ("execute_command",)

#: Claude Code's tool names (case as Claude Code writes them).
CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": _READ,
    "NotebookRead": _READ,
    "Write": ("write_file",),
    "Edit": ("edit_file", "apply_patch"),
    "MultiEdit": ("edit_file", "apply_patch"),
    "NotebookEdit": ("edit_file",),
    "Grep": ("grep", "search_code"),
    "Glob": ("find_files",),
    "LS": ("list_files",),
    "Bash": _RUN,
    "BashOutput": _RUN,
    "KillBash": _RUN,
    "KillShell": _RUN,
    "TodoWrite": ("update_plan",),
    "TodoRead": ("update_plan",),
    "Task": ("delegate",),
    "Agent": ("delegate",),
    "AskUserQuestion": ("ask_user",),
    "Skill": ("load_skill",),
    "LSP": ("navigate_code", "find_symbol", "find_references", "get_problems"),
    # Claude Code's plan mode hand-off: agentls plans without a tool for it.
    "ExitPlanMode": (),
}

#: Copilot's tool sets and VS Code's tool names (lower case: VS Code compares them so).
COPILOT_TOOLS: dict[str, tuple[str, ...]] = {
    # the tool sets (aliases) of Copilot's custom agents
    "read": (*_READ, "list_files", "get_problems"),
    "edit": _EDIT,
    "search": _SEARCH,
    "execute": _RUN,
    "shell": _RUN,
    "powershell": _RUN,
    "agent": ("delegate",),
    "custom-agent": ("delegate",),
    "todo": ("update_plan",),
    # VS Code's tools, alone or after their set (``search/codebase``)
    "codebase": ("search_code", "grep", "find_symbol"),
    "textsearch": ("grep",),
    "filesearch": ("find_files",),
    "listdirectory": ("list_files",),
    "readfile": _READ,
    "editfiles": ("edit_file", "apply_patch"),
    "createfile": ("write_file",),
    "createdirectory": ("write_file",),
    "runcommands": _RUN,
    "runinterminal": _RUN,
    "runtasks": _RUN,
    "runtests": _RUN,
    "problems": ("get_problems",),
    "usages": ("find_references", "find_symbol"),
    "rename": ("rename_symbol",),
    "findtestfiles": ("find_files",),
    "todos": ("update_plan",),
    "runsubagent": ("delegate",),
}

#: Tool sets of Copilot's whose tools agentls lacks: a namespaced name under them
#: (``web/fetch``) is such a tool, never an MCP server's.
_COPILOT_SETS = {"read", "edit", "search", "execute", "agent", "todo", "web", "vscode"}
_CLAUDE_MCP = re.compile(r"^mcp__(?P<server>[^_].*?)__(?P<tool>.+)$")
#: ``Bash(git status:*)``: a permission rule's specifier; the tool is what counts here.
_SPECIFIER = re.compile(r"^(?P<tool>[^()]+)\(.*\)$")


@dataclass
class MappedTools:
    """An agent file's tool list in agentls's names, and the names that had none."""

    tools: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    #: MCP wildcards (``server/*``, ``mcp__server``): agentls names MCP tools one by one.
    wildcards: list[str] = field(default_factory=list)

    def add(self, names: Iterable[str]) -> None:
        for name in names:
            if name not in self.tools:
                self.tools.append(name)


def split_tool_list(value: object) -> list[str] | None:
    """A front matter ``tools`` value as names: a list, or one comma-separated string
    (Claude Code's ``Read, Grep, Glob``). None when it is neither."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    return None


def map_tools(names: Iterable[str]) -> MappedTools:
    """``names`` (any of the formats above) as agentls's tool names, in order."""
    mapped = MappedTools()
    for raw in names:
        name = raw.strip()
        specifier = _SPECIFIER.match(name)
        if specifier:
            name = specifier.group("tool").strip()
        if _is_wildcard(name):
            mapped.wildcards.append(raw)
            continue
        found = _one(name)
        if found is None:
            mapped.unknown.append(raw)
            continue
        mapped.add(found)
    return mapped


def _is_wildcard(name: str) -> bool:
    """Every tool of an MCP server: ``server/*``, ``mcp__server`` or ``mcp__server__*``."""
    if name.endswith("/*") or name.endswith("__*"):
        return True
    return name.startswith("mcp__") and "__" not in name[len("mcp__") :]


def _one(name: str) -> tuple[str, ...] | None:
    if name in AGENTLS_TOOLS or (name.startswith("mcp_") and not name.startswith("mcp__")):
        return (name,)
    if name in CLAUDE_TOOLS:
        return CLAUDE_TOOLS[name]
    mcp = _CLAUDE_MCP.match(name)
    if mcp:
        return (prefixed_name(mcp.group("server"), mcp.group("tool")),)
    lowered = name.lower()
    if lowered in COPILOT_TOOLS:
        return COPILOT_TOOLS[lowered]
    if "/" in name:
        group, _, tool = name.partition("/")
        if group.lower() in _COPILOT_SETS:
            return COPILOT_TOOLS.get(tool.lower())
        if tool and tool != "*":
            # ``server/tool``: a tool of an MCP server, as agentls registers it.
            return (prefixed_name(group, tool),)
    return None
