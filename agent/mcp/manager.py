"""All configured MCP servers: start or connect them together, register their tools, close them.

Usage (the CLI, the language server)::

    async with MCPManager(config.mcp) as mcp:
        for warning in mcp.warnings:
            print(warning, file=sys.stderr)
        registry = build_registry()
        mcp.register(registry)
        ...

A server that cannot be reached at start-up costs at most ``connect_timeout`` (all
servers connect in parallel), is reported once in ``warnings``, and contributes no
tools. Nothing here raises for a server's failure.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from agentls.agent.config.models import MCPConfig, MCPServerConfig
from agentls.agent.errors import MCPConnectionError
from agentls.agent.mcp.closing import ClosedOnExit
from agentls.agent.mcp.connection import MCPConnection
from agentls.agent.mcp.names import dedupe, prefixed_name
from agentls.agent.mcp.tools import RemoteTool, discovery_tools, make_tool
from agentls.agent.tools.base import AnyTool
from agentls.agent.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


class MCPManager(ClosedOnExit):
    def __init__(
        self,
        config: MCPConfig,
        *,
        workspace: Path | None = None,
        servers: Sequence[MCPServerConfig] | None = None,
    ) -> None:
        """``servers`` (default: ``config.servers``) may add those of the workspace's
        other MCP files (``agent.mcp.sources``); ``workspace`` is where stdio servers run
        and what ``${workspaceFolder}`` means (default: the current directory)."""
        self.config = config
        self.connections = [
            MCPConnection(
                server,
                connect_timeout=config.connect_timeout,
                call_timeout=config.call_timeout,
                workspace=workspace,
            )
            for server in (config.servers if servers is None else servers)
        ]
        #: One message per server that could not be used, for the front end to show.
        self.warnings: list[str] = []
        self.remotes: list[RemoteTool] = []
        self._started = False

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def start(self) -> list[str]:
        """Start or connect every server concurrently and collect their tools; returns the
        warnings."""
        if self._started:
            return self.warnings
        self._started = True
        names = [c.name for c in self.connections]
        duplicates = {n for n in names if names.count(n) > 1}
        for name in sorted(duplicates):
            self.warnings.append(
                f"MCP: several servers are named {name!r}; their tool names get suffixes"
            )
        results = await asyncio.gather(
            *(self._connect(connection) for connection in self.connections),
        )
        taken: set[str] = set()
        for connection, ok in zip(self.connections, results, strict=True):
            if not ok:
                continue
            for tool in connection.tools:
                name = dedupe(prefixed_name(connection.name, tool.name), taken)
                taken.add(name)
                self.remotes.append(
                    RemoteTool(name, connection, tool, trusted=connection.server.trusted)
                )
        return self.warnings

    async def _connect(self, connection: MCPConnection) -> bool:
        try:
            await connection.connect()
        except MCPConnectionError as exc:
            message = f"{exc}; its tools are not available"
            log.info("%s", message)  # the front end shows self.warnings; once is enough
            self.warnings.append(message)
            return False
        except Exception as exc:  # a bug or surprise must not stop the other servers
            message = f"MCP server {connection.name!r}: {type(exc).__name__}: {exc}"
            log.exception("MCP server %r failed to start", connection.name)
            self.warnings.append(message)
            return False
        return True

    @property
    def uses_discovery(self) -> bool:
        """Whether the tools are too many to send: the model discovers them instead."""
        return len(self.remotes) > self.config.max_tool_schemas

    def tools(self) -> list[AnyTool]:
        """The tools to register: one per remote tool, or the discovery trio."""
        if not self.remotes:
            return []
        if self.uses_discovery:
            return discovery_tools(self.remotes)
        return [make_tool(remote) for remote in self.remotes]

    def register(self, registry: ToolRegistry) -> list[str]:
        """Add the MCP tools to ``registry``; returns their names.

        A name already taken by a built-in tool is skipped with a warning (built-ins win).
        """
        added = []
        for tool in self.tools():
            if registry.has_tool(tool.name):
                self.warnings.append(f"MCP tool {tool.name!r} clashes with a built-in tool")
                continue
            registry.register(tool)
            added.append(tool.name)
        return added

    async def aclose(self) -> None:
        """Close every connection, each in the task that owns it."""
        await asyncio.gather(
            *(connection.aclose() for connection in self.connections), return_exceptions=True
        )
