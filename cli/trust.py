"""The terminal's side of trust: ``agentls trust``/``untrust``, ``agentls mcp list``/
``approve``, the first-run question in a folder, and the MCP question before a run.

A folder's own configuration applies only once the user trusts it. In a terminal the
first run in a folder that ships configuration trust would change asks once and
remembers the answer (either way); without a terminal the run goes on untrusted and
says so in one line. Folders that ship nothing trust would change are not asked about:
there is nothing to decide.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any

from agentls.agent.config_loader import LoadedConfig, trust_command
from agentls.agent.folder.media import TERMINAL
from agentls.agent.trust import Loader, TrustStore, canonical, first_run


def add_trust_commands(sub: Any) -> None:
    """``trust``, ``untrust`` and ``mcp`` on the CLI's subparsers."""
    trust = sub.add_parser("trust", help="trust a folder: its own agentls config then applies")
    trust.add_argument("dir", nargs="?", type=Path, help="the folder (default: current dir)")
    trust.add_argument("--list", action="store_true", help="list the folders you decided on")
    untrust = sub.add_parser("untrust", help="stop trusting a folder")
    untrust.add_argument("dir", nargs="?", type=Path, help="the folder (default: current dir)")

    mcp = sub.add_parser("mcp", help="the MCP servers of a workspace and their approval")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    listing = mcp_sub.add_parser("list", help="each server, where it is declared, its state")
    approve = mcp_sub.add_parser("approve", help="allow a workspace's MCP server to start")
    approve.add_argument("names", nargs="*", metavar="NAME", help="servers to approve")
    approve.add_argument("--all", action="store_true", help="every server of the workspace")
    for command in (listing, approve):
        command.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")


def _folder(path: Path | None) -> str:
    return canonical(path if path is not None else Path.cwd())


def trust_command_main(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    store = TrustStore()
    if args.command == "trust" and args.list:
        decisions = store.folders()
        if not decisions:
            print("No folder decided on yet.", file=out)
        for decision in decisions:
            state = "trusted  " if decision.trusted else "untrusted"
            print(f"{state}  {decision.path}", file=out)
        return 0
    folder = _folder(args.dir)
    if not os.path.isdir(folder):
        print(f"agentls: {folder} is not a directory", file=sys.stderr)
        return 1
    trusted = args.command == "trust"
    store.set_trusted(folder, trusted)
    if trusted:
        print(
            f"Trusted {folder}: its .agentls.yaml now applies whole, and its MCP servers can "
            "start once you approve each (`agentls mcp list`).",
            file=out,
        )
    else:
        print(
            f"Not trusted: {folder}. Only the parts of its .agentls.yaml that cannot widen "
            "anything apply, and its MCP files are not read.",
            file=out,
        )
    return 0


# -- the first run in a folder ------------------------------------------------------------


def trusted_config(
    folder: Path, load: Loader, *, stdin: IO[str] | None = None, stderr: IO[str] | None = None
) -> LoadedConfig:
    """The config to run with (``agent.trust.first_run``), the question asked once in a
    terminal when the folder is undecided, else what an untrusted run ignores said in one
    line."""
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    store = TrustStore()
    found = first_run(folder, load, store)
    loaded = found.loaded
    if found.undecided and _interactive(stdin):
        stderr.write(_question(loaded))
        stderr.flush()
        answer = stdin.readline().strip().lower()
        if answer in ("y", "yes"):
            store.set_trusted(folder, True)
            stderr.write(f"Trusted {canonical(folder)}.\n")
            return load(True)
        store.set_trusted(folder, False)
        stderr.write(
            f"Not trusted; you will not be asked again (`{trust_command(loaded.root)}` "
            "changes your mind).\n"
        )
        return loaded
    notice = loaded.notice(TERMINAL.how_to_trust(loaded.root))
    if notice:
        stderr.write(f"agentls: {notice}\n")
    return loaded


def _interactive(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):
        return False


def _question(loaded: LoadedConfig) -> str:
    lines = [f"\nDo you trust the authors of {loaded.root}?"]
    lines.append("Trusting it lets its own files configure agentls:")
    lines += [f"  - {key} in .agentls.yaml" for key in loaded.ignored]
    lines += [f"  - {name}" for name in loaded.ignored_files]
    lines += [f"  - {problem}" for problem in loaded.problems]
    lines.append(
        "Untrusted, the agent still reads, searches and edits with your confirmation. "
        "Trust this folder? [y/N] "
    )
    return "\n".join(lines)


# -- MCP ----------------------------------------------------------------------------------


def terminal_mcp_approver(
    stdin: IO[str] | None = None,
    stderr: IO[str] | None = None,
    readline: Callable[[], Awaitable[str]] | None = None,
) -> Callable[..., Any] | None:
    """An McpApprover asking on the terminal; None without one (servers are skipped).
    ``readline``: how the run reads the terminal, when one reader owns it for the run
    (then the answer must come through it, or that reader would take it as a message)."""
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    if not _interactive(stdin):
        return None
    import asyncio

    async def read() -> str:
        if readline is not None:
            return await readline()
        line: str = await asyncio.to_thread(stdin.readline)
        return line

    async def approve(item: Any) -> bool:
        stderr.write(f"\n{item.question()} [y/N] ")
        stderr.flush()
        return (await read()).strip().lower() in ("y", "yes")

    return approve


def mcp_command_main(args: argparse.Namespace, out: IO[str] = sys.stdout) -> int:
    from agentls.agent.errors import AgentError
    from agentls.agent.mcp.approval import (
        declared_servers,
        definition_digest,
        describe_definition,
        server_state,
    )

    folder = Path(_folder(args.workspace))
    store = TrustStore()
    try:
        servers, warnings = declared_servers(folder)
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    trusted = store.is_trusted(folder)
    if args.mcp_command == "list":
        rows = []
        for server in servers:
            rows.append(
                {
                    "name": server.name,
                    "source": server.source_label,
                    "state": server_state(server, folder, trusted, store),
                    "definition": describe_definition(server, folder),
                }
            )
        if args.json:
            print(json.dumps(rows, indent=2), file=out)
            return 0
        if not rows:
            print("No MCP servers declared.", file=out)
        for row in rows:
            print(f"{row['name']}  ({row['source']})  {row['state']}", file=out)
            for line in row["definition"]:
                print(f"    {line}", file=out)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        return 0
    workspace_own = {s.name: s for s in servers if s.source == "workspace"}
    names = sorted(workspace_own) if args.all else args.names
    if not names:
        print("agentls: name the servers to approve, or pass --all", file=sys.stderr)
        return 1
    if not trusted:
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
