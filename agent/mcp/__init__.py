"""Tools from remote MCP servers, through the official MCP Python SDK (issue 8).

``MCPManager`` connects the configured servers and registers their tools as
``mcp_{server}_{tool}``; ``load_mcp_tools`` is the one-call form for front ends.
"""

from __future__ import annotations

from agent.config import MCPConfig
from agent.mcp.connection import MCPConnection, resolve_token
from agent.mcp.manager import MCPManager
from agent.mcp.names import VALID_NAME, dedupe, prefixed_name, sanitize
from agent.mcp.render import render_block, render_result
from agent.mcp.tools import MCPTool, RemoteTool, discovery_tools, make_tool
from agent.tools.registry import ToolRegistry


async def load_mcp_tools(config: MCPConfig, registry: ToolRegistry) -> MCPManager:
    """Start an ``MCPManager`` for ``config`` and register its tools in ``registry``.

    The caller owns the returned manager and must ``await manager.aclose()``;
    ``manager.warnings`` holds one message per server that could not be used.
    """
    manager = MCPManager(config)
    await manager.start()
    manager.register(registry)
    return manager


__all__ = [
    "VALID_NAME",
    "MCPConnection",
    "MCPManager",
    "MCPTool",
    "RemoteTool",
    "dedupe",
    "discovery_tools",
    "load_mcp_tools",
    "make_tool",
    "prefixed_name",
    "render_block",
    "render_result",
    "resolve_token",
    "sanitize",
]
