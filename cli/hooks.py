"""``agentls hooks list|approve``: the workspace's hook files, what each runs and whether
it runs, and approving them in a trusted folder."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_hooks_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    hooks = sub.add_parser("hooks", help="list or approve the workspace's hooks")
    hooks.add_argument("hooks_command", choices=("list", "approve"))
    hooks.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    hooks.set_defaults(func=hooks_command)


def hooks_command(args: argparse.Namespace) -> int:
    from agentls.agent.config.models import AppConfig
    from agentls.agent.config.trust import TrustStore
    from agentls.agent.errors import AgentError
    from agentls.agent.hooks import (
        approve_workspace_hooks,
        hook_lines,
        load_hooks,
        workspace_sources,
    )

    folder = Path(os.path.abspath(args.workspace or Path.cwd()))
    try:
        if args.hooks_command == "approve":
            if not TrustStore().is_trusted(folder):
                print(
                    f"agentls: {folder} is not trusted; hooks run only in a trusted folder "
                    f"(`agentls trust {folder}`)",
                    file=sys.stderr,
                )
                return 1
            approved = approve_workspace_hooks(folder)
            print(f"Approved the hooks of {', '.join(approved)}." if approved else "No hooks.")
            return 0
        found, problems = workspace_sources(folder)
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    trusted = TrustStore().is_trusted(folder)
    loaded = load_hooks(AppConfig(), folder, trusted=trusted)
    running = {source.label for source in loaded.sources}
    for source in found:
        state = "runs" if source.label in running else "does not run"
        print(f"{source.label}: {state}")
        for line in hook_lines(source.table, folder):  # as the run's question shows them
            print(f"  {line}")
    for line in [*problems, *loaded.notices]:
        print(f"agentls: {line}", file=sys.stderr)
    if not found:
        print("No workspace hooks.")
    return 0
