"""The workspace files of the programs the user approved in a folder (its MCP servers and
hooks), each with why: protected paths for a run there, since changing one would change
what runs with the user's rights. Which files a program runs or reads is
``approved_files``'s; this module only gathers them across the kinds, above both."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from agentls.agent.config.models import AppConfig
from agentls.agent.config.trust import TrustStore
from agentls.agent.hooks import hook_files, workspace_sources
from agentls.agent.mcp.approval import server_files
from agentls.agent.mcp.sources import workspace_servers
from agentls.agent.protected.approved_files import WorkspaceFile

log = logging.getLogger(__name__)


def protected_by_approvals(
    config: AppConfig, root: Path, *, trusted: bool, store: TrustStore | None = None
) -> dict[str, str]:
    """The workspace files of the MCP servers and hooks the user approved in ``root``
    (workspace-relative, with why each is protected). Empty for an untrusted folder,
    whose servers and hooks never run. A stored approval counts whether or not the
    definition still matches it: a changed file asks again before anything runs, and
    until then stays protected."""
    if not trusted:
        return {}
    store = store if store is not None else TrustStore()
    reasons: dict[str, str] = {}

    def add(files: Iterable[WorkspaceFile], why: str) -> None:
        for item in files:
            for rel in (item.path, item.target):
                if rel and not os.path.isabs(rel):
                    reasons.setdefault(rel, why)

    # A broken file or trust list is reported where it is read; here it only costs the
    # protection of what could not be listed, which the log says.
    try:
        for server in workspace_servers(config).servers:
            if server.source == "workspace" and store.approved_digest(root, "mcp", server.name):
                add(
                    server_files(server, root),
                    f"the MCP server {server.name!r} you approved runs or reads it",
                )
    except Exception:
        log.warning("could not list the files of the approved MCP servers", exc_info=True)
    try:
        sources, _ = workspace_sources(root)
        for source in sources:
            if store.approved_digest(root, "hooks", source.label):
                add(
                    hook_files(source.table, root), f"a hook of {source.label} you approved runs it"
                )
    except Exception:
        log.warning("could not list the files of the approved hooks", exc_info=True)
    return reasons
