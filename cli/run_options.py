"""The command line of ``agentls run``: its prompt and flags. The run itself is
``run.py``'s ``run_command``, imported when the command runs (not to build the parser)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from agentls.agent.config.models import ConfirmMode, SelfEvalMode, choices


def add_run_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run the agent headless on a prompt")
    run.add_argument(
        "prompt",
        nargs="?",
        help="what to do; with --input-format stream-json it may be left out (or `-`): the "
        "first user_message line on stdin is then the prompt",
    )
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
    run.set_defaults(func=run_main)


def run_main(args: argparse.Namespace) -> int:
    """``agentls run``: see ``run.run_command`` (exit codes 0, 2, 1 and 130)."""
    from agentls.cli.run import run_command

    return run_command(args)


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
    parser.add_argument(
        "--model",
        help="the model for this run (wins over /model, the agent's model and llm.model)",
    )
    parser.add_argument("--api-base", help="model API base URL (overrides llm.api_base)")
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        help="text: the answer on stdout, progress on stderr (the default); json: the result "
        "as JSON (as --json); stream-json: every event of the run, one JSON object a line "
        "(docs/headless.md)",
    )
    parser.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        default="text",
        help="stream-json: read the messages to the run and the answers to its questions "
        "from stdin, one JSON object a line (with --output-format stream-json; "
        "docs/headless.md)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument("--no-stream", action="store_true", help="do not stream model text")
    parser.add_argument("--dry-run", action="store_true", help="report changes, make none")
    parser.add_argument(
        "--session", metavar="ID", help="continue session ID (or start a new one under that id)"
    )


def command_line_flags(args: argparse.Namespace, *, model: bool = True) -> dict[str, Any]:
    """The settings layer of the model flags (``--model``, ``--api-base``, ``--no-stream``);
    ``model=False`` leaves ``--model`` out (a run takes it as its own model)."""
    from agentls.agent.folder.settings import command_line_overrides

    return command_line_overrides(
        model=getattr(args, "model", None) if model else None,
        api_base=getattr(args, "api_base", None),
        stream=not getattr(args, "no_stream", False),
    )
