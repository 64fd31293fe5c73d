"""``agentls``'s terminal commands: the top-level parser and the dispatcher.

Every ``agentls`` subcommand but the language server and ACP, which ``agentls.__main__``
dispatches before this module is imported. Each command lives in a module of its own,
which adds its sub-parser and names the function that runs it (``set_defaults(func=...)``,
a function of the parsed arguments returning the exit code); this module only builds the
top-level parser from them and calls the function chosen, its output masked.

The modules are imported to build the parser, so they import what their commands need
inside the functions: ``agentls mask`` or ``agentls trust`` does not load the engine's run.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence

from agentls.cli.agents import add_agents_command
from agentls.cli.checkpoints import add_checkpoint_commands
from agentls.cli.config_docs import add_config_doc_commands
from agentls.cli.demo.runner import add_demo_command
from agentls.cli.hooks import add_hooks_command
from agentls.cli.library_logs import quiet_library_logs
from agentls.cli.mask import add_mask_command
from agentls.cli.mcp import add_mcp_command
from agentls.cli.models import add_models_command
from agentls.cli.run_options import add_run_command
from agentls.cli.sessions import add_sessions_command
from agentls.cli.slash_commands import add_commands_command
from agentls.cli.trust import add_trust_commands
from agentls.cli.worktrees import add_worktree_commands

DESCRIPTION = "``agentls``: the headless run, the headless demo and the config docs."

#: A subcommand's function: the parsed arguments in, the process's exit code out.
Command = Callable[[argparse.Namespace], int]


def version_line() -> str:
    from agentls import __version__

    return f"agentls {__version__}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentls", description=DESCRIPTION)
    parser.add_argument("-V", "--version", action="version", version=version_line())
    parser.add_argument("--stdio", action="store_true", help="run the language server on stdio")
    parser.add_argument("--tcp", action="store_true", help="run the language server on TCP")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2087)
    sub = parser.add_subparsers(dest="command")
    add_run_command(sub)
    add_demo_command(sub)
    add_sessions_command(sub)
    add_checkpoint_commands(sub)
    add_trust_commands(sub)
    add_mcp_command(sub)
    add_models_command(sub)
    add_agents_command(sub)
    add_worktree_commands(sub)
    add_mask_command(sub)
    add_commands_command(sub)
    add_hooks_command(sub)
    serve = sub.add_parser("serve", help="run the language server on stdio")
    serve.set_defaults(func=served_elsewhere)
    add_config_doc_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    quiet_library_logs()
    if args.stdio or args.tcp:
        return served_elsewhere(args)
    command: Command | None = getattr(args, "func", None)
    if command is None:  # `agentls` alone, or only top-level flags
        parser.print_help()
        return 1
    if not getattr(args, "redacted_output", True):
        return command(args)
    with redacted_output():
        return command(args)


def served_elsewhere(args: argparse.Namespace) -> int:
    """``serve`` and ``--stdio``/``--tcp`` here: the language server is a front end of its
    own, which ``agentls`` (``agentls.__main__``) starts before the CLI is imported."""
    print("agentls: the language server is started by `agentls --stdio`", file=sys.stderr)
    return 1


@contextlib.contextmanager
def redacted_output() -> Iterator[None]:
    """Every line this process prints is masked like the log: a key that reached an
    error message (an MCP URL with its token, say) never reaches the terminal.

    A command whose parser sets ``redacted_output=False`` masks its output itself
    (``agentls mask``: bytes in, bytes out, masked whole rather than line by line)."""
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


if __name__ == "__main__":
    sys.exit(main())
