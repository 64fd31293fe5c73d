"""``agentls agents``: the agents a run in this workspace can use (``--agent NAME``), with
where each is defined: built in, the settings' ``agents:``, or an agent file
(``.agentls/agents``, ``.claude/agents``, ``.github/agents``, the user's ``agents/``)."""

from __future__ import annotations

import argparse
import json
import sys

from agentls.cli.workspace_settings import add_settings_options


def add_agents_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    agents = sub.add_parser("agents", help="list the agents a run can use here")
    add_settings_options(agents)
    agents.add_argument("--json", action="store_true", help="print the list as JSON")
    agents.set_defaults(func=agents_command)


def agents_command(args: argparse.Namespace) -> int:
    from agentls.agent.errors import AgentError
    from agentls.agent.folder.media import TERMINAL
    from agentls.agent.folder.settings import FolderSettings
    from agentls.compose import folder_engine

    engine = folder_engine(TERMINAL)
    # The trust the user decided (a listing asks nothing): what a run would get.
    engine.settings = FolderSettings(args.workspace, config_file=args.config)
    try:
        loaded = engine.settings.load()
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    infos = engine.agents(loaded.config).list()
    if args.json:
        rows = [
            {
                "name": i.name,
                "description": i.description,
                "readOnly": i.read_only,
                "source": i.source,
            }
            for i in infos
        ]
        print(json.dumps(rows, indent=2))
    else:
        width = max(len(info.name) for info in infos)
        for info in infos:
            mark = "read-only" if info.read_only else ""
            print(f"{info.name.ljust(width)}  {mark:9}  {info.description}  ({info.source})")
    for notice in engine.notices(sandbox=False):
        print(f"agentls: warning: {notice}", file=sys.stderr)
    return 0
