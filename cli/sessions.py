"""``agentls sessions``: the sessions of a workspace, newest first (``agentls sessions
show ID``, one of them: ``session_show``)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from agentls.cli.workspace_settings import add_settings_options, settings_of

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig


def add_sessions_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from agentls.cli.session_show import add_show_command

    sessions = sub.add_parser(
        "sessions", help="list the sessions of the workspace (`sessions show ID`: one of them)"
    )
    add_settings_options(sessions)
    sessions.add_argument("--json", action="store_true", help="print the list as JSON")
    sessions.set_defaults(func=sessions_command)
    add_show_command(sessions)


def sessions_command(args: argparse.Namespace) -> int:
    config = settings_of(args)
    return 1 if config is None else list_sessions(config, as_json=args.json)


def list_sessions(config: AppConfig, *, as_json: bool = False) -> int:
    """Id, last update, last status and title of each session, newest first."""
    import time

    from agentls.agent.folder.media import TERMINAL
    from agentls.compose import folder_engine

    summaries = folder_engine(TERMINAL).sessions(config).list()
    if as_json:
        print(json.dumps([s.to_json() for s in summaries], indent=2))
        return 0
    if not summaries:
        print("No sessions yet.")
        return 0
    rows = [
        (s.id, time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated)), s.status, s.title)
        for s in summaries
    ]
    header = ("SESSION", "UPDATED", "STATUS", "TITLE")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
    return 0
