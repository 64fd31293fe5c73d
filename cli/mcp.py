"""``agentls mcp list`` and ``agentls mcp approve``: the MCP servers a workspace declares,
where each is declared, what it runs and whether it may start; approving a trusted
workspace's own servers (by name, or ``--all``). Each approval holds for the definition
it was given for: a changed definition is asked about again."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from agentls.agent.config.trust import TrustStore, canonical, trust_command

if TYPE_CHECKING:
    from agentls.agent.config.models import MCPServerConfig


def add_mcp_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser("mcp", help="the MCP servers of a workspace and their approval")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    listing = mcp_sub.add_parser("list", help="each server, where it is declared, its state")
    approve = mcp_sub.add_parser("approve", help="allow a workspace's MCP server to start")
    approve.add_argument("names", nargs="*", metavar="NAME", help="servers to approve")
    approve.add_argument("--all", action="store_true", help="every server of the workspace")
    for command in (listing, approve):
        command.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    mcp.set_defaults(func=mcp_command_main)


def mcp_command_main(args: argparse.Namespace, out: IO[str] | None = None) -> int:
    from agentls.agent.errors import AgentError
    from agentls.agent.mcp.approval import declared_servers

    out = sys.stdout if out is None else out  # now: the masked stdout while a command runs
    folder = Path(canonical(args.workspace if args.workspace is not None else Path.cwd()))
    store = TrustStore()
    try:
        servers, warnings = declared_servers(folder)
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    if args.mcp_command == "list":
        _list(servers, warnings, folder, store, as_json=args.json, out=out)
        return 0
    return _approve(servers, args.names, folder, store, every=args.all, out=out)


def _list(
    servers: list[MCPServerConfig],
    warnings: list[str],
    folder: Path,
    store: TrustStore,
    *,
    as_json: bool,
    out: IO[str],
) -> None:
    from agentls.agent.mcp.approval import describe_definition, server_state

    trusted = store.is_trusted(folder)
    rows = [
        {
            "name": server.name,
            "source": server.source_label,
            "state": server_state(server, folder, trusted, store),
            "definition": describe_definition(server, folder),
        }
        for server in servers
    ]
    if as_json:
        print(json.dumps(rows, indent=2), file=out)
        return
    if not rows:
        print("No MCP servers declared.", file=out)
    for row in rows:
        print(f"{row['name']}  ({row['source']})  {row['state']}", file=out)
        for line in row["definition"]:
            print(f"    {line}", file=out)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)


def _approve(
    servers: list[MCPServerConfig],
    names: list[str],
    folder: Path,
    store: TrustStore,
    *,
    every: bool,
    out: IO[str],
) -> int:
    """Approve the workspace's own servers named (``every``: all of them), each for the
    definition it has now."""
    from agentls.agent.mcp.approval import definition_digest, describe_definition

    workspace_own = {s.name: s for s in servers if s.source == "workspace"}
    names = sorted(workspace_own) if every else names
    if not names:
        print("agentls: name the servers to approve, or pass --all", file=sys.stderr)
        return 1
    if not store.is_trusted(folder):
        print(
            f"agentls: {folder} is not trusted, so its MCP servers are not used at all; "
            f"trust it first with `{trust_command(folder)}`",
            file=sys.stderr,
        )
        return 1
    unknown = [name for name in names if name not in workspace_own]
    if unknown:
        known = ", ".join(sorted(workspace_own)) or "none"
        print(
            f"agentls: no workspace MCP server named {', '.join(unknown)} "
            f"(the workspace declares: {known})",
            file=sys.stderr,
        )
        return 1
    for name in names:
        server = workspace_own[name]
        store.approve(folder, "mcp", name, definition_digest(server, folder))
        print(f"Approved {name} ({server.source_label}):", file=out)
        for line in describe_definition(server, folder):
            print(f"    {line}", file=out)
    return 0
