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
import re
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.cancel import CancelToken
from agentls.agent.config import AppConfig, ConfirmMode, SelfEvalMode, choices
from agentls.agent.config_loader import config_overrides, load_config
from agentls.agent.errors import AgentError
from agentls.regular_files import read_regular

if TYPE_CHECKING:
    from agentls.agent.config_loader import LoadedConfig
    from agentls.agent.events import AgentEvent, Observer
    from agentls.cli.terminal import TerminalAsker, TerminalObserver
    from agentls.cli.terminal_input import TerminalMessages
    from agentls.langservers import LanguageServers

EXIT_CODES = {"success": 0, "partial": 2, "failed": 1}
EXIT_INTERRUPTED = 130


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
        from agentls.agent.config_loader import load
        from agentls.agent.sandbox_status import missing_sandbox_notice
        from agentls.cli.trust import trusted_config

        def load_with(trusted: bool) -> LoadedConfig:
            return load(
                args.workspace,
                args.config,
                config_overrides(args),
                overrides_source="command-line flags",
                trusted=trusted,
            )

        worktree, created = None, False
        if args.worktree is not None:
            from agentls.cli.worktrees import prepare_worktree

            try:
                worktree, created = prepare_worktree(
                    Path(args.workspace or Path.cwd()), args.worktree
                )
            except AgentError as exc:
                print(f"agentls: {exc}", file=sys.stderr)
                return 1
            print(f"agentls: working in {worktree.path} ({worktree.branch})", file=sys.stderr)
            args.workspace = worktree.folder
        folder = Path(os.path.abspath(args.workspace or Path.cwd()))
        try:
            # The first line: whether commands can be sandboxed at all, before any question.
            # (Untrusted, a workspace can only make the sandbox stricter, never turn it off.)
            sandbox = missing_sandbox_notice(load_with(False).config)
            if sandbox:
                print(f"agentls: warning: {sandbox}", file=sys.stderr)
            loaded = trusted_config(folder, load_with)
        except AgentError as exc:
            print(f"agentls: {exc}", file=sys.stderr)
            return 1
        if worktree is not None and created and loaded.config.worktree.setup:
            from agentls.cli.worktrees import set_up_worktree

            if not asyncio.run(set_up_worktree(worktree, loaded.config)):
                return 1
        code = asyncio.run(run_headless(args, loaded.config, trusted=loaded.trusted))
        if worktree is not None:
            from agentls.cli.worktrees import finish_worktree_run

            finish_worktree_run(worktree, args.prompt)
        return code
    build_parser().print_help()
    return 1


async def run_headless(
    args: argparse.Namespace, config: AppConfig, *, trusted: bool = False
) -> int:
    from pydantic import ValidationError

    from agentls.agent.attachments import AttachmentError
    from agentls.agent.contract import problems
    from agentls.agent.run import FrontEnd, RunRequest, run_with_own_tools
    from agentls.cli.terminal import TerminalApprover, TerminalAsker, TerminalObserver
    from agentls.cli.trust import terminal_mcp_approver

    try:
        request = RunRequest(
            prompt=args.prompt,
            agent=args.agent,
            confirm_mode=args.mode,
            max_steps=args.max_steps,
            self_eval=args.self_eval,
            dry_run=args.dry_run,
            stream=False if (args.no_stream or args.json or args.quiet) else None,
            step_timeout=args.timeout,
            session_id=args.session or None,
            attachments=cli_attachments(args.attach, args.image),
            token_budget=args.token_budget,
            # The instruction files from the root down to where the user stands apply.
            active_file=_current_folder(config.workspace.root),
        )
    except ValidationError as exc:  # e.g. an empty prompt, --max-steps 0
        print(f"agentls: {problems(exc)}", file=sys.stderr)
        return 1
    except AttachmentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    asker = TerminalAsker()
    files = asker.disk_files(config)
    cancel = CancelToken()
    interrupted = _install_sigint(cancel)

    def warn(message: str) -> None:
        print(f"agentls: warning: {message}", file=sys.stderr)

    terminal = TerminalObserver(quiet=args.quiet)
    typed = _typed_messages(asker, terminal)
    servers = language_servers(config, trusted=trusted)
    front_end = FrontEnd(
        files,
        TerminalApprover(asker),
        observer=terminal if typed is None else _both(terminal, typed.observe),
        cancel=cancel,
        trusted=trusted,
        messages=None if typed is None else typed.mailbox,
        problems=servers,
    )
    try:
        outcome = await run_with_own_tools(
            request,
            front_end,
            config=config,
            warn=warn,
            approve_mcp=terminal_mcp_approver(readline=asker.readline),
        )
    finally:
        if asker.lines is not None:
            asker.lines.stop()
        if servers is not None:
            await servers.aclose()
    if args.json:
        print(json.dumps(outcome.to_result(), indent=2))
    else:
        sys.stderr.write("\n")
        print(outcome.state.final_output or "")
        usage = outcome.state.usage
        if usage.total_tokens and not args.quiet:
            sys.stderr.write(
                f"tokens: {usage.prompt_tokens} prompt ({usage.cached_tokens} cached), "
                f"{usage.completion_tokens} completion\n"
            )
    if interrupted():
        return EXIT_INTERRUPTED
    return EXIT_CODES.get(outcome.state.status, 1)


def _typed_messages(asker: TerminalAsker, terminal: TerminalObserver) -> TerminalMessages | None:
    """With a terminal on stdin, a line typed while the run works is a message to it
    (questions still get their answers); without one, stdin is never read."""
    from agentls.agent.run_messages import RunMessages
    from agentls.cli.terminal_input import TerminalLines, TerminalMessages

    if not asker.interactive:
        return None
    typed = TerminalMessages(RunMessages(), terminal.say)
    lines = TerminalLines(asker.stdin, typed.typed)
    if not lines.start():
        return None
    asker.lines = typed.lines = lines
    return typed


def _both(first: Observer, second: Observer) -> Observer:
    def observe(event: AgentEvent) -> None:
        first(event)
        second(event)

    return observe


def language_servers(config: AppConfig, *, trusted: bool) -> LanguageServers | None:
    """The language servers this run may start to learn the problems of what it edits
    (none start until a file of theirs is read or edited); None when diagnostics are off."""
    if not config.diagnostics.enabled:
        return None
    # A front end's part, imported here: the engine itself never imports it.
    from agentls.agent.config_loader import trust_command
    from agentls.langservers import LanguageServers

    root = config.workspace.root
    how = f"run `{trust_command(root)}`"
    return LanguageServers(config.diagnostics, root, trusted=trusted, how_to_trust=how)


def cli_attachments(attach: list[str], images: list[str]) -> list[Any]:
    """``--attach`` and ``--image`` as attachments; AttachmentError for an image that
    cannot be read (files are read with the run, confined to the workspace)."""
    import base64
    import mimetypes

    from agentls.agent.attachments import AttachmentError
    from agentls.agent.contract import Attachment

    out: list[Attachment] = []
    for item in attach:
        if item == "changes":
            out.append(Attachment(kind="changes"))
            continue
        if item == "problems" or item.startswith("problems:"):
            out.append(Attachment(kind="problems", path=item.partition(":")[2] or None))
            continue
        if item.startswith("@"):
            out.append(Attachment(kind="symbol", name=item[1:]))
            continue
        path, start, end = item, None, None
        match = re.fullmatch(r"(.+):(\d+)(?:-(\d+))?", item)
        if match:
            path, start = match[1], int(match[2])
            end = int(match[3]) if match[3] else start
        out.append(Attachment(kind="file", path=path, start_line=start, end_line=end))
    for image in images:
        mime = mimetypes.guess_type(image)[0] or ""
        try:
            # The user names it, but it may sit in the workspace, where a command can have
            # left a FIFO: never block on one.
            data = read_regular(os.path.realpath(image))
        except OSError as exc:
            raise AttachmentError(f"--image {image}: {exc.strerror or exc}") from None
        out.append(
            Attachment(
                kind="image",
                path=image,
                data=base64.b64encode(data).decode("ascii"),
                mime_type=mime or "application/octet-stream",
            )
        )
    return out


def _current_folder(root: Path) -> str | None:
    """The current directory, when it lies inside the workspace (else the run's folder is
    the root)."""
    here = Path.cwd().resolve()
    try:
        return here.relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return None


def hooks_command(folder: Path, args: argparse.Namespace) -> int:
    """``agentls hooks list|approve``: the workspace's hook files and whether they run."""
    from agentls.agent.errors import AgentError
    from agentls.agent.hooks import (
        approve_workspace_hooks,
        command_files,
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
        for event, matchers in source.table.items():
            for matcher in matchers:
                for hook in matcher.hooks:
                    on = f" [{matcher.matcher}]" if matcher.matcher else ""
                    print(f"  {event}{on}: {hook.command}")
                    for item in command_files(hook.command, folder):
                        print(f"    runs or reads workspace file {item.describe()}")
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


def _install_sigint(cancel: CancelToken) -> Any:
    hits = 0

    def on_sigint() -> None:
        nonlocal hits
        hits += 1
        if hits == 1:
            sys.stderr.write(
                "\nInterrupted: stopping after the current step (Ctrl-C again to quit)\n"
            )
            cancel.cancel("interrupted by Ctrl-C")
        else:
            sys.stderr.write("\nAborted.\n")
            sys.stderr.flush()
            # os._exit skips the MCP manager's close: end the local servers it started.
            stdio = sys.modules.get("agentls.agent.mcp.stdio")
            if stdio is not None:
                stdio.end_all_groups()
            os._exit(EXIT_INTERRUPTED)

    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_sigint)
    return lambda: hits > 0


if __name__ == "__main__":
    sys.exit(main())
