"""Tools from remote MCP servers, through the official MCP Python SDK.

``MCPManager`` connects the configured servers and registers their tools as
``mcp_{server}_{tool}``; ``load_mcp_tools`` is the one-call form for front ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from agentls.agent.config import AppConfig, MCPConfig
from agentls.agent.mcp.connection import MCPConnection, resolve_token
from agentls.agent.mcp.manager import MCPManager
from agentls.agent.mcp.names import VALID_NAME, dedupe, prefixed_name, sanitize
from agentls.agent.mcp.pool import MCPPool
from agentls.agent.mcp.render import render_block, render_result
from agentls.agent.mcp.tools import MCPTool, RemoteTool, discovery_tools, make_tool
from agentls.agent.tools.registry import ToolRegistry


async def load_mcp_tools(config: MCPConfig, registry: ToolRegistry) -> MCPManager:
    """Start an ``MCPManager`` for ``config`` and register its tools in ``registry``.

    The caller owns the returned manager and must ``await manager.aclose()``;
    ``manager.warnings`` holds one message per server that could not be used.
    """
    manager = MCPManager(config)
    await manager.start()
    manager.register(registry)
    return manager


@asynccontextmanager
async def mcp_tools(
    config: AppConfig,
    *,
    warn: Callable[[str], None],
    registry: ToolRegistry | None = None,
) -> AsyncIterator[ToolRegistry | None]:
    """For one run: the registry with the MCP tools added, closed when the block ends.

    Yields ``registry`` unchanged (None: let ``run_agent`` build the default) when no
    server is configured. Each server that cannot be used is passed to ``warn`` once.
    """
    if not config.mcp.servers:
        yield registry
        return
    from agentls.agent.tools import build_registry

    target = registry if registry is not None else build_registry()
    async with MCPManager(config.mcp) as manager:
        manager.register(target)
        for message in manager.warnings:
            warn(message)
        yield target


__all__ = [
    "VALID_NAME",
    "MCPConnection",
    "MCPManager",
    "MCPPool",
    "MCPTool",
    "RemoteTool",
    "dedupe",
    "discovery_tools",
    "load_mcp_tools",
    "make_tool",
    "mcp_tools",
    "prefixed_name",
    "render_block",
    "render_result",
    "resolve_token",
    "sanitize",
]
