"""MCP connections that outlive one run: the language server's view of MCP.

The server runs many agent runs over its life. Connecting to every MCP server for
each run would cost a handshake per run and repeat every start-up warning, so the
pool keeps one ``MCPManager`` for the current ``mcp:`` settings, starts it on the
first run that needs it, replaces it when the settings (or the workspace's MCP files)
change, and closes it at shutdown, which stops the local (stdio) servers. Each run
still gets its own registry (built-ins plus the MCP tools).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentls.agent.config.models import AppConfig
from agentls.agent.mcp.approval import definition_digest, gate
from agentls.agent.mcp.manager import MCPManager
from agentls.agent.mcp.sources import workspace_servers
from agentls.agent.policy.program_approval import ProgramApprovals
from agentls.agent.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentls.agent.policy.approval import Approver


class MCPPool:
    def __init__(self, approvals: ProgramApprovals | None = None) -> None:
        self._manager: MCPManager | None = None
        self._key: str = ""
        self._quiet_key: str = ""
        self._lock = asyncio.Lock()
        #: The folder's approvals: what the user refused is remembered there.
        self.approvals = approvals if approvals is not None else ProgramApprovals()

    async def registry_for(
        self,
        config: AppConfig,
        *,
        warn: Callable[[str], None],
        approver: Approver | None = None,
    ) -> ToolRegistry | None:
        """A fresh registry with the MCP tools of ``config``, or None when it has no servers.

        The workspace's ``.vscode/mcp.json`` and ``.mcp.json`` are read again for each
        run (they are small), so an edit to them applies to the next run without a watcher.
        A server the workspace declares starts once the user approved it (``approver``
        is asked; a refusal holds until its definition changes). ``warn`` receives the
        start-up warnings, once per (re)start of the pool.
        """
        found = await asyncio.to_thread(workspace_servers, config)
        async with self._lock:
            gated = await gate(
                found.servers,
                config.workspace.root,
                approvals=self.approvals,
                approver=approver,
            )
        found.servers = gated.allowed
        found.warnings.extend(gated.skipped)
        if not found.servers:
            async with self._lock:
                await self._close()
                # Every entry skipped (say, all need ${input:...}): say why, once.
                quiet_key = json.dumps(found.warnings)
                if found.warnings and quiet_key != self._quiet_key:
                    for message in found.warnings:
                        warn(message)
                self._quiet_key = quiet_key
            return None
        key = json.dumps(
            [
                str(config.workspace.root),
                config.mcp.model_dump(mode="json", exclude={"servers"}),
                [server.model_dump(mode="json") for server in found.servers],
                # Reading SecretStr dumps "**********": a changed inline token must count.
                [s.token.get_secret_value() if s.token else None for s in found.servers],
                # A script the user approved again after it changed: the running server
                # still runs the old one, so the pool starts afresh.
                [definition_digest(s, config.workspace.root) for s in found.servers],
            ]
        )
        async with self._lock:
            if self._manager is None or key != self._key:
                await self._close()
                self._manager = MCPManager(
                    config.mcp, workspace=config.workspace.root, servers=found.servers
                )
                self._key = key
                self._quiet_key = ""
                for message in found.warnings:
                    warn(message)
                for message in await self._manager.start():
                    warn(message)
            manager = self._manager
        from agentls.agent.tools import build_registry

        registry = build_registry(config)
        before = len(manager.warnings)
        manager.register(registry)
        for message in manager.warnings[before:]:
            warn(message)
        # register() appends clash warnings each time; keep them from piling up per run.
        del manager.warnings[before:]
        return registry

    async def aclose(self) -> None:
        async with self._lock:
            await self._close()

    async def _close(self) -> None:
        if self._manager is not None:
            await self._manager.aclose()
        self._manager = None
        self._key = ""
