"""Tools from MCP servers (local over stdio, remote over HTTP), through the official
MCP Python SDK.

``MCPManager`` starts or connects the configured servers and registers their tools as
``mcp_{server}_{tool}``; ``mcp_tools`` is the one-call form for one run, ``MCPPool``
the language server's, and ``workspace_servers`` adds the servers of the workspace's
``.vscode/mcp.json`` and ``.mcp.json``.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from agentls.agent.config.models import AppConfig, MCPConfig
from agentls.agent.mcp.approval import definition_digest, describe_definition, gate
from agentls.agent.mcp.names import VALID_NAME, dedupe, prefixed_name, sanitize
from agentls.agent.mcp.sources import WorkspaceServers, workspace_servers
from agentls.agent.policy.program_approval import ProgramApprovals
from agentls.agent.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentls.agent.mcp.connection import MCPConnection, resolve_token
    from agentls.agent.mcp.manager import MCPManager
    from agentls.agent.mcp.pool import MCPPool
    from agentls.agent.mcp.render import render_block, render_result
    from agentls.agent.mcp.stdio import end_all_groups
    from agentls.agent.mcp.tools import MCPTool, RemoteTool, discovery_tools, make_tool
    from agentls.agent.policy.approval import Approver

# What needs the MCP SDK (a second or more of imports) is loaded on first use: a run whose
# folder declares no server, or that only reads approvals (the protected files of a run,
# `agentls mcp list`), never imports it.
_ON_FIRST_USE = {
    "MCPConnection": "connection",
    "resolve_token": "connection",
    "MCPManager": "manager",
    "MCPPool": "pool",
    "render_block": "render",
    "render_result": "render",
    "end_all_groups": "stdio",
    "MCPTool": "tools",
    "RemoteTool": "tools",
    "discovery_tools": "tools",
    "make_tool": "tools",
}


def __getattr__(name: str) -> Any:
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


async def load_mcp_tools(config: MCPConfig, registry: ToolRegistry) -> MCPManager:
    """Start an ``MCPManager`` for ``config`` and register its tools in ``registry``.

    The caller owns the returned manager and must ``await manager.aclose()``;
    ``manager.warnings`` holds one message per server that could not be used.
    """
    from agentls.agent.mcp.manager import MCPManager

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
    approver: Approver | None = None,
    approvals: ProgramApprovals | None = None,
) -> AsyncIterator[ToolRegistry | None]:
    """For one run: the registry with the MCP tools added, closed when the block ends.

    Yields ``registry`` unchanged (None: let ``run_agent`` build the default) when no
    server is configured. Each server that cannot be used is passed to ``warn`` once.
    A server the workspace declares starts only once the user approved it: ``approver``
    is asked (None: nobody can be asked, and such servers are skipped with a message);
    ``approvals`` remembers the user's refusals (by default, for this block only).
    Local (stdio) servers are stopped, with whatever they started, when the block ends.
    """
    found = await asyncio.to_thread(workspace_servers, config)
    for message in found.warnings:
        warn(message)
    gated = await gate(
        found.servers,
        config.workspace.root,
        approvals=approvals if approvals is not None else ProgramApprovals(),
        approver=approver,
    )
    for message in gated.skipped:
        warn(message)
    if not gated.allowed:
        yield registry
        return
    from agentls.agent.mcp.manager import MCPManager
    from agentls.agent.tools import build_registry

    target = registry if registry is not None else build_registry(config)
    manager = MCPManager(config.mcp, workspace=config.workspace.root, servers=gated.allowed)
    async with manager:
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
    "WorkspaceServers",
    "dedupe",
    "definition_digest",
    "describe_definition",
    "discovery_tools",
    "end_all_groups",
    "gate",
    "load_mcp_tools",
    "make_tool",
    "mcp_tools",
    "prefixed_name",
    "render_block",
    "render_result",
    "resolve_token",
    "sanitize",
    "workspace_servers",
]
