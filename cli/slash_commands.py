"""``agentls slash-commands`` (or ``agentls commands``): the /commands a prompt can start
with in this workspace (the built-in ones, the user's and the workspace's prompt files), not
the shell command rules of the ``commands:`` config key."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def add_commands_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # "commands" alone means shell commands (the `commands:` rules); the old name stays
    # accepted for the scripts that use it.
    commands = sub.add_parser(
        "slash-commands", aliases=["commands"], help="list the /name commands of the workspace"
    )
    commands.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    commands.add_argument("--json", action="store_true", help="print the list as JSON")
    commands.set_defaults(func=commands_command)


def commands_command(args: argparse.Namespace) -> int:
    return list_commands(args.workspace or Path.cwd(), as_json=args.json)


def list_commands(workspace: Path, *, as_json: bool = False) -> int:
    """Each command with its description, hint and source."""
    from agentls.agent.folder.media import TERMINAL
    from agentls.agent.folder.settings import FolderSettings
    from agentls.compose import folder_engine

    root = Path(os.path.abspath(workspace))
    engine = folder_engine(TERMINAL)
    # The folder's trust decides whether its skills are offered (a problem says so).
    engine.settings = FolderSettings(root)
    engine.settings.refresh_trust()
    found = engine.slash_commands(root)
    rows = [
        {
            "name": c.name,
            "description": c.description,
            "hint": c.hint,
            "source": c.path or c.source,
        }
        for c in found.listed()
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        width = max(len(row["name"]) for row in rows) + 1
        for row in rows:
            usage = f"/{row['name']} {row['hint']}".rstrip()
            print(f"{usage.ljust(width + 12)}  {row['description']}  ({row['source']})")
    for problem in found.problems:
        print(f"agentls: warning: {problem}", file=sys.stderr)
    return 0
