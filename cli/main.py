"""``agentls``: the headless run, the headless demo and the config docs.

The terminal front end: every ``agentls`` subcommand but the language server and ACP,
which ``agentls.__main__`` dispatches before this module is imported. The demo alone
speaks LSP, as a client of a server it starts like an editor does.

Exit codes of ``agentls run``: 0 success, 2 partial, 1 failed, 130 interrupted by
Ctrl-C. The first Ctrl-C stops after the current step (a graceful shutdown through a
CancelToken); the second exits at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentls.agent.config import AppConfig, ConfirmMode, SelfEvalMode, choices
from agentls.agent.config_loader import load_config
from agentls.agent.errors import AgentError

if TYPE_CHECKING:
    pass


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", type=Path, help="workspace root (default: current dir)")
    parser.add_argument("--config", type=Path, help="config file (default: .agentls.yaml)")
    parser.add_argument(
        "--agent", default="build", help="agent name (build, plan, review, mixed, ...)"
    )
    parser.add_argument("--mode", choices=choices(ConfirmMode), help="confirm mode")
    parser.add_argument("--max-steps", type=int, help="maximum loop iterations")
    parser.add_argument("--self-eval", choices=choices(SelfEvalMode), help="self-evaluation")
    parser.add_argument("--timeout", type=float, default=0, help="per-step timeout in seconds")
    parser.add_argument("--model", help="model name (overrides llm.model)")
    parser.add_argument("--api-base", help="model API base URL (overrides llm.api_base)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--no-stream", action="store_true", help="do not stream model text")
    parser.add_argument("--dry-run", action="store_true", help="report changes, make none")
    parser.add_argument(
        "--session", metavar="ID", help="continue session ID (or start a new one under that id)"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentls", description=__doc__.splitlines()[0])
    parser.add_argument("--stdio", action="store_true", help="run the language server on stdio")
    parser.add_argument("--tcp", action="store_true", help="run the language server on TCP")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2087)
    sub = parser.add_subparsers(dest="command")

    run = sub.add_parser("run", help="run the agent headless on a prompt")
    run.add_argument("prompt")
    _add_run_options(run)
    run.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="PATH[:L1-L2]",
        help="attach a file, or some of its lines (repeatable); `changes` attaches the "
        "uncommitted changes, `problems` the current errors and warnings (`problems:PATH` "
        "those of one file, checked now), `@name` a symbol's definition; a file named "
        "like a keyword is `./changes`",
    )
    run.add_argument("--image", action="append", default=[], metavar="FILE", help="attach an image")
    run.add_argument(
        "--worktree",
        nargs="?",
        const="",
        metavar="NAME",
        help="run in a worktree of its own, on the branch agentls/NAME (a new session id "
        "when no NAME is given; an existing NAME's worktree is continued)",
    )
    run.add_argument(
        "--token-budget",
        type=int,
        metavar="N",
        help="stop (partial) once the run's model calls used N tokens",
    )

    demo = sub.add_parser("demo", help="show the product on a sample workspace")
    demo.add_argument("--model", help="a real litellm model (default: scripted replies)")
    demo.add_argument("--api-base", help="API base URL for --model")
    demo.add_argument("--headless", action="store_true", help="run the loop without the server")

    sessions = sub.add_parser("sessions", help="list the sessions of the workspace")
    sessions.add_argument("--workspace", type=Path, help="workspace root (default: current dir)")
    sessions.add_argument("--config", type=Path, help="config file (default: .agentls.yaml)")
    sessions.add_argument("--json", action="store_true", help="print the list as JSON")

    checkpoints = sub.add_parser("checkpoints", help="list runs and the files each changed")
    checkpoints.add_argument("--session", help="only this session's runs")
    restore = sub.add_parser("restore", help="put the workspace back as it was before a run")
    restore.add_argument("run_id", metavar="RUN_ID")
    restore.add_argument("--force", action="store_true", help="overwrite files changed since")
    restore.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    for command in (checkpoints, restore):
        command.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
        command.add_argument("--config", type=Path, help="config file (default: .agentls.yaml)")
        command.add_argument("--json", action="store_true", help="print the result as JSON")

    from agentls.cli.mask import add_mask_command
    from agentls.cli.trust import add_trust_commands
    from agentls.cli.worktrees import add_worktree_commands

    add_trust_commands(sub)
    add_worktree_commands(sub)
    add_mask_command(sub)
    commands = sub.add_parser("commands", help="list the /commands of the workspace")
    commands.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    commands.add_argument("--json", action="store_true", help="print the list as JSON")
    hooks = sub.add_parser("hooks", help="list or approve the workspace's hooks")
    hooks.add_argument("hooks_command", choices=("list", "approve"))
    hooks.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    sub.add_parser("serve", help="run the language server on stdio")
    sub.add_parser("config-schema", help="print the JSON Schema of .agentls.yaml")
    sub.add_parser("config-docs", help="print the configuration table (Markdown)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.stdio or args.tcp or args.command == "serve":
        # The language server is a front end of its own: `agentls` (agentls.__main__) starts it.
        print("agentls: the language server is started by `agentls --stdio`", file=sys.stderr)
        return 1
    if args.command == "mask":  # bytes in, bytes out: masked whole, not line by line
        from agentls.cli.mask import mask_command

        return mask_command(args)
    with redacted_output():
        return _command(args)


@contextlib.contextmanager
def redacted_output() -> Iterator[None]:
    """Every line this process prints is masked like the log: a key that reached an
    error message (an MCP URL with its token, say) never reaches the terminal."""
    from agentls.cli.terminal import RedactingStream

    out, err = RedactingStream(sys.stdout), RedactingStream(sys.stderr)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        out.close_held()
        err.close_held()
        sys.stdout, sys.stderr = saved


def _command(args: argparse.Namespace) -> int:
    if args.command in ("trust", "untrust"):
        from agentls.cli.trust import trust_command_main

        return trust_command_main(args)
    if args.command == "mcp":
        from agentls.cli.trust import mcp_command_main

        return mcp_command_main(args)
    if args.command == "commands":
        return list_commands(args.workspace or Path.cwd(), as_json=args.json)
    if args.command in ("worktrees", "apply", "discard"):
        from agentls.cli.worktrees import worktree_command_main

        return worktree_command_main(args)
    if args.command == "hooks":
        return hooks_command(Path(os.path.abspath(args.workspace or Path.cwd())), args)
    if args.command == "config-schema":
        from agentls.agent.config_docs import config_schema

        print(json.dumps(config_schema(), indent=2))
        return 0
    if args.command == "config-docs":
        from agentls.agent.config_docs import config_table

        print(config_table())
        return 0
    if args.command == "demo":
        from agentls.cli.demo.runner import run_demo

        return run_demo(model=args.model, api_base=args.api_base, headless=args.headless)
    if args.command == "sessions":
        try:
            config = load_config(args.workspace, args.config)
        except AgentError as exc:
            print(f"agentls: {exc}", file=sys.stderr)
            return 1
        return list_sessions(config, as_json=args.json)
    if args.command in ("checkpoints", "restore"):
        from agentls.cli.checkpoints import checkpoints_command

        try:
            config = load_config(args.workspace, args.config)
        except AgentError as exc:
            print(f"agentls: {exc}", file=sys.stderr)
            return 1
        return asyncio.run(checkpoints_command(args, config))
    if args.command == "run":
        from agentls.cli.run import run_command

        return run_command(args)
    build_parser().print_help()
    return 1


def hooks_command(folder: Path, args: argparse.Namespace) -> int:
    """``agentls hooks list|approve``: the workspace's hook files and whether they run."""
    from agentls.agent.errors import AgentError
    from agentls.agent.hooks import (
        approve_workspace_hooks,
        hook_lines,
        load_hooks,
        workspace_sources,
    )
    from agentls.agent.trust import TrustStore

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


def list_sessions(config: AppConfig, *, as_json: bool = False) -> int:
    """``agentls sessions``: id, last update, last status and title, newest first."""
    import time

    from agentls.agent.sessions import store_for

    summaries = store_for(config.workspace.root, config.sessions.dir).list()
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


def list_commands(workspace: Path, *, as_json: bool = False) -> int:
    """``agentls commands``: each command with its description, hint and source."""
    from agentls.agent.commands import load_commands

    found = load_commands(Path(os.path.abspath(workspace)))
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


if __name__ == "__main__":
    sys.exit(main())
