"""The terminal's side of trust: ``agentls trust``/``untrust`` and the first-run question
in a folder (``agentls mcp`` is ``mcp.py``; the question about a workspace's program before a
run is the run's approver's: ``cli.terminal.TerminalApprover``).

A folder's own configuration applies only once the user trusts it. In a terminal the
first run in a folder that ships configuration trust would change asks once and
remembers the answer (either way); without a terminal the run goes on untrusted and
says so in one line. Folders that ship nothing trust would change are not asked about:
there is nothing to decide.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from agentls.agent.config.trust import TrustStore, canonical, trust_command

if TYPE_CHECKING:
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.folder.settings import LoadedConfig


def add_trust_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``trust`` and ``untrust`` on the CLI's subparsers."""
    trust = sub.add_parser("trust", help="trust a folder: its own agentls config then applies")
    trust.add_argument("dir", nargs="?", type=Path, help="the folder (default: current dir)")
    trust.add_argument("--list", action="store_true", help="list the folders you decided on")
    untrust = sub.add_parser("untrust", help="stop trusting a folder")
    untrust.add_argument("dir", nargs="?", type=Path, help="the folder (default: current dir)")
    for command in (trust, untrust):
        command.set_defaults(func=trust_command_main)


def _folder(path: Path | None) -> str:
    return canonical(path if path is not None else Path.cwd())


def trust_command_main(args: argparse.Namespace, out: IO[str] | None = None) -> int:
    out = sys.stdout if out is None else out  # now: the masked stdout while a command runs
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
    engine: FolderEngine, *, stdin: IO[str] | None = None, stderr: IO[str] | None = None
) -> LoadedConfig:
    """The config to run with (``FolderSettings.first_run``), the question asked once in a
    terminal when the folder is undecided, else what an untrusted run ignores said in one
    line."""
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    settings = engine.settings
    found = settings.first_run()
    loaded = found.loaded
    if found.undecided and _interactive(stdin):
        stderr.write(_question(loaded))
        stderr.flush()
        answer = stdin.readline().strip().lower()
        if answer in ("y", "yes"):
            trusted = settings.decide_trust(True)
            stderr.write(f"Trusted {canonical(settings.root)}.\n")
            return trusted
        settings.decide_trust(False)
        stderr.write(
            f"Not trusted; you will not be asked again (`{trust_command(loaded.root)}` "
            "changes your mind).\n"
        )
        return loaded
    notice = engine.trust_notice()
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
    lines += [f"  - {what}" for what in loaded.ignored_agent_files]
    lines += [f"  - {problem}" for problem in loaded.problems]
    lines.append(
        "Untrusted, the agent still reads, searches and edits with your confirmation. "
        "Trust this folder? [y/N] "
    )
    return "\n".join(lines)


# -- MCP ----------------------------------------------------------------------------------
