"""``agentls checkpoints`` and ``agentls restore RUN_ID``: undo a run from the terminal.

The CLI writes to disk directly; the diff of a restore is shown and confirmed on the
terminal like any other edit (``--yes`` skips the question). A mode change is asked
about apart, ``--yes`` or not: without a terminal to ask on, modes are not set back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import TYPE_CHECKING

from agentls.agent.errors import AgentError
from agentls.cli.workspace_settings import add_settings_options, settings_of

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig
    from agentls.cli.terminal import TerminalAsker


def add_checkpoint_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    checkpoints = sub.add_parser("checkpoints", help="list runs and the files each changed")
    checkpoints.add_argument("--session", help="only this session's runs")
    restore = sub.add_parser("restore", help="put the workspace back as it was before a run")
    restore.add_argument("run_id", metavar="RUN_ID")
    restore.add_argument("--force", action="store_true", help="overwrite files changed since")
    restore.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    for command in (checkpoints, restore):
        add_settings_options(command)
        command.add_argument("--json", action="store_true", help="print the result as JSON")
        command.set_defaults(func=checkpoints_command)


def checkpoints_command(args: argparse.Namespace) -> int:
    """``agentls checkpoints`` or ``agentls restore``, in the workspace's settings."""
    config = settings_of(args)
    return 1 if config is None else asyncio.run(_checkpoints_or_restore(args, config))


async def _checkpoints_or_restore(args: argparse.Namespace, config: AppConfig) -> int:
    # Imported here, not to build the parser: the checkpoint store loads much of the engine.
    from agentls.agent.checkpoints import foreign_runs, list_checkpoints, restore, store_of_run
    from agentls.agent.folder.media import TERMINAL
    from agentls.cli.terminal import TerminalAsker
    from agentls.compose import folder_engine

    try:
        # Inside the try: a symlinked state folder is refused with a message, never read.
        sessions = folder_engine(TERMINAL).sessions(config)
        if args.command == "checkpoints":
            runs = list_checkpoints(sessions, args.session)
            for record, ids in foreign_runs(sessions):
                # repr: the ids are the record's, whatever characters it chose.
                named = ", ".join(repr(run_id) for run_id in ids[:5])
                more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
                print(
                    f"agentls: {record} holds run(s) agentls did not record for you "
                    f"({named}{more}): not listed, and never restored",
                    file=sys.stderr,
                )
            if args.json:
                print(json.dumps(runs, indent=2))
            elif not runs:
                print("No checkpoints yet.")
            for run in [] if args.json else runs:
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run["at"]))
                label = f"restore of {run['restores']}" if run["kind"] == "restore" else "run"
                print(f"{run['runId']}  {when}  session {run['sessionId']}  {label}")
                for item in run["files"]:
                    print(f"    {item['change']:<8} {item['path']}")
            return 0
        asker = TerminalAsker()
        files = asker.disk_files(config)
        store = store_of_run(sessions, args.run_id)
        result = await restore(
            store,
            args.run_id,
            files,
            force=args.force,
            confirm=not args.yes,
            confirm_bytes=(lambda paths: _ask_bytes(asker, paths)) if asker.interactive else None,
            confirm_modes=(lambda lines: _ask_modes(asker, lines)) if asker.interactive else None,
        )
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        print(f"restore of {result.run_id}: {result.status} {result.message}".rstrip())
        for path in result.restored:
            print(f"  restored   {path}")
        for path in result.conflicts:
            print(f"  conflict   {path} (changed since the run; kept; --force overwrites)")
        for item in result.unrestorable:
            print(f"  not restored {item['path']}: {item['reason']}")
    return 0 if result.status in ("applied", "nothing") and not result.conflicts else 1


async def _ask_bytes(asker: TerminalAsker, paths: list[str]) -> bool:
    answer = await asker.ask(
        f"Also write back {len(paths)} file(s) that are not text ({', '.join(paths)})?"
    )
    return answer in ("y", "yes")


async def _ask_modes(asker: TerminalAsker, lines: list[str]) -> bool:
    """Asked whatever ``--yes`` said: a mode is not part of the diff it confirms."""
    asker.stderr.write("The restore would also set these files' modes back:\n")
    asker.stderr.write("".join(f"  {line}\n" for line in lines))
    answer = await asker.ask("Change the modes?")
    return answer in ("y", "yes")
