"""MCP tools as agent tools: one per remote tool, or a discovery trio beyond the cap.

A remote tool's arguments are described by the server's JSON Schema, not a pydantic
model, so the engine gets a permissive ``args_model`` (any object) and the schema
sent to the model is the server's, verbatim. The arguments are checked against
that schema here, before the call, so the model gets a list of problems it can fix
rather than a remote error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

import jsonschema  # type: ignore[import-untyped]
import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.config.models import AgentConfig
from agentls.agent.errors import MCPError
from agentls.agent.mcp.connection import MCPConnection
from agentls.agent.mcp.render import render_result
from agentls.agent.text import shorten
from agentls.agent.tools.base import AnyTool, RunContext, Tool, ToolContext, ToolResult

#: Longest description passed to the model for one remote tool.
MAX_DESCRIPTION = 1024


class AnyArguments(BaseModel):
    """Whatever object the model sends; the server's schema is checked in ``run``."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class RemoteTool:
    """One tool offered by one server, under the name the model sees."""

    name: str
    connection: MCPConnection
    tool: types.Tool
    trusted: bool

    @property
    def server(self) -> str:
        return self.connection.name

    def description(self) -> str:
        text = (self.tool.description or self.tool.title or self.tool.name).strip()
        text = shorten(text, MAX_DESCRIPTION)
        return f"{text} (MCP tool {self.tool.name!r} on server {self.server!r})"

    def input_schema(self) -> dict[str, Any]:
        schema = dict(self.tool.input_schema or {})
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        return schema

    def check(self, arguments: dict[str, Any]) -> str:
        """Problems with ``arguments`` against the input schema, or ''."""
        schema = self.input_schema()
        try:
            validator_cls = jsonschema.validators.validator_for(schema)
            validator = validator_cls(schema)
            errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
        except (jsonschema.SchemaError, jsonschema.exceptions.UnknownType):
            return ""  # a server with a broken schema is the server's problem: let it decide
        problems = []
        for error in errors[:10]:
            where = ".".join(str(p) for p in error.absolute_path) or "(arguments)"
            problems.append(f"{where}: {error.message}")
        if not problems:
            return ""
        return (
            f"Invalid arguments for {self.name}: {'; '.join(problems)}. "
            f"Expected schema: {json.dumps(schema.get('properties', {}))[:1500]}. "
            "Fix the arguments and call it again."
        )

    async def call(self, arguments: dict[str, Any]) -> ToolResult:
        problems = self.check(arguments)
        if problems:
            return ToolResult.fail(problems)
        try:
            result = await self.connection.call_tool(self.tool.name, arguments)
        except MCPError as exc:
            return ToolResult.fail(str(exc))
        return ToolResult.ok(render_result(result))


def _arguments(args: Any) -> dict[str, Any]:
    if isinstance(args, BaseModel):
        return args.model_dump()
    return dict(args or {})


def _preview(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, indent=2, ensure_ascii=False, default=str)
    return shorten(text, 2000, marker="\n…")


class MCPTool(Tool[AnyArguments]):
    """Base of the per-remote-tool classes built by ``make_tool``."""

    remote: ClassVar[RemoteTool]

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.remote.input_schema(),
            },
        }

    async def run(self, args: AnyArguments, ctx: ToolContext) -> ToolResult:
        return await self.remote.call(_arguments(args))

    async def describe_for_approval(self, args: AnyArguments, run: RunContext) -> tuple[str, str]:
        return (
            f"The agent wants to call the tool {self.remote.tool.name!r} on the MCP server "
            f"{self.remote.server!r} ({self.remote.connection.server.where}).",
            _preview(_arguments(args)),
        )


def make_tool(remote: RemoteTool) -> AnyTool:
    """A Tool instance for ``remote``; each gets its own class because Tool's
    name, description and sensitivity are class attributes."""
    cls = type(
        f"MCPTool_{remote.name}",
        (MCPTool,),
        {
            "name": remote.name,
            "description": remote.description(),
            "sensitive": not remote.trusted,
            "remote": remote,
        },
    )
    tool: AnyTool = cls()
    return tool


# --- discovery, when the tools would cost too much context -------------------------


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server: str | None = Field(None, description="Only this server's tools.")
    query: str | None = Field(
        None, description="Only tools whose name or description contains this text."
    )


class DescribeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The tool's name as listed by list_mcp_tools.")


class CallArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The tool's name as listed by list_mcp_tools.")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="Arguments matching the tool's input schema."
    )


class _Catalog:
    def __init__(self, remotes: list[RemoteTool]) -> None:
        self.by_name = {remote.name: remote for remote in remotes}

    def find(self, name: str) -> RemoteTool | None:
        return self.by_name.get(name)

    def unknown(self, name: str) -> ToolResult:
        return ToolResult.fail(
            f"No MCP tool named {name!r}. Call list_mcp_tools to see the available names."
        )


class ListMCPTools(Tool[ListArgs], name="list_mcp_tools"):
    """List the tools offered by the connected MCP servers (name, server, one-line description). Use
    describe_mcp_tool for a tool's arguments, then call_mcp_tool."""

    def __init__(self, catalog: _Catalog) -> None:
        self.catalog = catalog

    async def run(self, args: ListArgs, ctx: ToolContext) -> ToolResult:
        query = (args.query or "").lower()
        lines = []
        for remote in self.catalog.by_name.values():
            if args.server and remote.server != args.server:
                continue
            summary = (remote.tool.description or "").strip().splitlines()
            first = summary[0][:160] if summary else ""
            if query and query not in remote.name.lower() and query not in first.lower():
                continue
            lines.append(f"{remote.name} [{remote.server}]: {first}")
        if not lines:
            return ToolResult.ok("No MCP tools match.")
        return ToolResult.ok(f"{len(lines)} MCP tools:\n" + "\n".join(lines))


class DescribeMCPTool(Tool[DescribeArgs], name="describe_mcp_tool"):
    """Show an MCP tool's full description and the JSON Schema of its arguments."""

    def __init__(self, catalog: _Catalog) -> None:
        self.catalog = catalog

    async def run(self, args: DescribeArgs, ctx: ToolContext) -> ToolResult:
        remote = self.catalog.find(args.name)
        if remote is None:
            return self.catalog.unknown(args.name)
        return ToolResult.ok(
            f"{remote.name}: {remote.description()}\n"
            f"Arguments (JSON Schema):\n{json.dumps(remote.input_schema(), indent=2)}"
        )


class CallMCPTool(Tool[CallArgs], name="call_mcp_tool"):
    """Call an MCP tool found with list_mcp_tools, with arguments matching the schema shown by
    describe_mcp_tool."""

    # Sensitive as a whole; calls to a trusted server's tools are let through in
    # auto_approval, so trust stays per server as it is for directly registered tools.
    sensitive = True

    def __init__(self, catalog: _Catalog) -> None:
        self.catalog = catalog

    def auto_approval(self, args: dict[str, Any], agent: AgentConfig) -> str:
        remote = self.catalog.find(str(args.get("name", "")))
        if remote is not None and remote.trusted:
            return f"MCP server {remote.server!r} is trusted"
        return ""

    async def run(self, args: CallArgs, ctx: ToolContext) -> ToolResult:
        remote = self.catalog.find(args.name)
        if remote is None:
            return self.catalog.unknown(args.name)
        return await remote.call(dict(args.arguments))

    async def describe_for_approval(self, args: CallArgs, run: RunContext) -> tuple[str, str]:
        remote = self.catalog.find(args.name)
        if remote is None:
            return f"The agent wants to call an unknown MCP tool {args.name!r}.", ""
        return (
            f"The agent wants to call the tool {remote.tool.name!r} on the MCP server "
            f"{remote.server!r} ({remote.connection.server.where}).",
            _preview(dict(args.arguments)),
        )


def discovery_tools(remotes: list[RemoteTool]) -> list[AnyTool]:
    catalog = _Catalog(remotes)
    return [ListMCPTools(catalog), DescribeMCPTool(catalog), CallMCPTool(catalog)]
