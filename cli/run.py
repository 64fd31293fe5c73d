"""``agentls run``: one run in the terminal, its exit code the run's status.

Exit codes: 0 success, 2 partial, 1 failed, 130 interrupted by Ctrl-C. The first Ctrl-C
stops after the current step (a graceful shutdown through a CancelToken); the second
exits at once.
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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.cancel import CancelToken
from agentls.agent.config.models import AppConfig
from agentls.agent.errors import AgentError
from agentls.cli.run_options import command_line_flags
from agentls.regular_files import read_regular

if TYPE_CHECKING:
    from agentls.agent.events import AgentEvent, Observer
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.folder.settings import LoadedConfig
    from agentls.agent.folder.worktree_runs import WorktreeRun
    from agentls.agent.policy.approval import Approver
    from agentls.agent.run_messages import RunMessages
    from agentls.cli.terminal import TerminalAsker, TerminalObserver
    from agentls.cli.terminal_input import TerminalMessages

EXIT_CODES = {"success": 0, "partial": 2, "failed": 1}
EXIT_INTERRUPTED = 130


def run_command(args: argparse.Namespace) -> int:
    """``agentls run``: load the folder's settings (asking about trust), prepare a worktree
    when asked, run headless, and commit the worktree's changes."""
    if args.prompt in (None, "-"):
        if getattr(args, "input_format", "text") != "stream-json":
            print(
                "agentls run: a prompt is needed (or --input-format stream-json with the "
                "prompt as the first user_message line on stdin)",
                file=sys.stderr,
            )
            return 2
        from agentls.cli.stream_input import NoPrompt, prompt_from_stdin

        try:
            args.prompt = prompt_from_stdin()
        except NoPrompt as exc:
            print(f"agentls: {exc}", file=sys.stderr)
            return 1
    return asyncio.run(_run_command(args))


async def _run_command(args: argparse.Namespace) -> int:
    """The run on the folder engine of this command, ended with it."""
    from agentls.agent.folder.media import TERMINAL
    from agentls.compose import folder_engine

    engine = folder_engine(TERMINAL)
    try:
        return await _run_in(engine, args)
    finally:
        await engine.aclose()


async def _run_in(engine: FolderEngine, args: argparse.Namespace) -> int:
    worktree = None
    if args.worktree is not None:
        try:
            worktree = await engine.hold_worktree(
                Path(args.workspace or Path.cwd()), args.worktree or None
            )
        except AgentError as exc:
            print(f"agentls: {exc}", file=sys.stderr)
            return 1
        print(
            f"agentls: working in {worktree.worktree.path} ({worktree.worktree.branch})",
            file=sys.stderr,
        )
        args.workspace = worktree.worktree.folder
    try:
        loaded = _load_asking_trust(engine, args)
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    if worktree is None:
        return await run_headless(args, loaded.config, engine=engine, trusted=loaded.trusted)
    from agentls.cli.terminal import TerminalObserver

    config = worktree.config_for(loaded.config)
    failed = await worktree.set_up(config, TerminalObserver(quiet=args.quiet))
    if failed:
        print(f"agentls: {failed}", file=sys.stderr)
        return 1
    code = await run_headless(
        args, config, engine=engine, trusted=loaded.trusted, worktree=worktree
    )
    try:
        summary = await worktree.finish(args.prompt)
    except AgentError as exc:
        print(f"agentls: the changes were not committed: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.release_worktree(worktree)
    print(f"agentls: {summary.text()}", file=sys.stderr)
    return code


def _load_asking_trust(engine: FolderEngine, args: argparse.Namespace) -> LoadedConfig:
    """The folder's settings, kept by ``engine``; the trust question asked in a terminal
    the first time."""
    from agentls.agent.folder.folder import sandbox_notice
    from agentls.agent.folder.settings import FolderSettings
    from agentls.cli.trust import trusted_config

    # --model is the run's own (RunRequest.model), which wins over the agent's model;
    # as llm.model the agent's would win over it.
    engine.settings = FolderSettings(
        args.workspace, config_file=args.config, flags=command_line_flags(args, model=False)
    )
    # The first line: whether commands can be sandboxed at all, before any question.
    # (Untrusted, a workspace can only make the sandbox stricter, never turn it off.)
    sandbox = sandbox_notice(engine.settings.load(trusted=False).config)
    if sandbox:
        print(f"agentls: warning: {sandbox}", file=sys.stderr)
    return trusted_config(engine)


async def run_headless(
    args: argparse.Namespace,
    config: AppConfig,
    *,
    engine: FolderEngine,
    trusted: bool = False,
    worktree: WorktreeRun | None = None,
) -> int:
    from pydantic import ValidationError

    from agentls.agent.contract import invalid_fields
    from agentls.agent.prompts.attachments import AttachmentError
    from agentls.agent.run import FrontEnd, RunRequest
    from agentls.cli.terminal import TerminalApprover, TerminalAsker, TerminalObserver

    output = output_format(args)
    if getattr(args, "input_format", "text") == "stream-json" and output != "stream-json":
        print(
            "agentls: --input-format stream-json needs --output-format stream-json", file=sys.stderr
        )
        return 1
    try:
        request = RunRequest(
            prompt=args.prompt,
            agent=args.agent,
            model=args.model or None,
            confirm_mode=args.mode,
            max_steps=args.max_steps,
            self_eval=args.self_eval,
            dry_run=args.dry_run,
            stream=False if (args.no_stream or output == "json" or args.quiet) else None,
            step_timeout=args.timeout,
            session_id=args.session or None,
            attachments=cli_attachments(args.attach, args.image),
            token_budget=args.token_budget,
            # The instruction files from the root down to where the user stands apply.
            active_file=_current_folder(config.workspace.root),
        )
    except ValidationError as exc:  # e.g. an empty prompt, --max-steps 0
        print(f"agentls: {invalid_fields(exc)}", file=sys.stderr)
        return 1
    except AttachmentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    asker = TerminalAsker()
    files = asker.disk_files(config)
    # One run in the engine's book: its token is what Ctrl-C sets, its mailbox what the
    # user types meanwhile.
    ticket = engine.runs.begin(None, request.session_id, request.agent)
    # The run is known by the book's ids everywhere (its record, its events).
    request = request.model_copy(update={"run_id": ticket.run_id, "session_id": ticket.session_id})
    cancel = ticket.token
    interrupted = _install_sigint(cancel)

    def warn(message: str) -> None:
        print(f"agentls: warning: {message}", file=sys.stderr)

    terminal = TerminalObserver(quiet=args.quiet)
    # Driven through stdin, the run takes no typed lines from a terminal.
    driven = output == "stream-json" and getattr(args, "input_format", "text") == "stream-json"
    typed = None if driven else _typed_messages(asker, terminal, ticket.messages)
    approver: Approver = TerminalApprover(asker)
    if worktree is not None:
        approver = worktree.reviewed_at_apply(approver, files)
    observer: Observer = terminal if typed is None else _both(terminal, typed.observe)
    stream = None
    source = None
    if output == "stream-json":
        from agentls.cli.stream_output import StreamingApprover, StreamWriter

        # stdout is the stream's alone; stderr keeps only warnings.
        stream = StreamWriter()
        stream.start(request)
        if driven:
            from agentls.cli.stream_input import StreamInput, StreamInputApprover

            source = StreamInput(ticket.messages, stream)
            approver = StreamInputApprover(source)
            if worktree is not None:
                approver = worktree.reviewed_at_apply(approver, files)
            source.start()
        observer = stream if typed is None else _both(stream, typed.observe)
        approver = StreamingApprover(approver, stream, source)
    mailbox = ticket.messages if driven else None if typed is None else typed.mailbox
    front_end = FrontEnd(
        files,
        approver,
        observer=observer,
        cancel=cancel,
        trusted=trusted,
        messages=mailbox,
        problems=engine.language_servers(config),
        # The trust notice was said with the question; the agent files' are the run's.
        notices=engine.settings.agent_notices,
        navigator=engine.navigator(config),
    )
    try:
        outcome = await engine.run_with_own_tools(request, front_end, config=config, warn=warn)
    finally:
        engine.runs.end(ticket.run_id)
        if source is not None:
            source.stop()
        if asker.lines is not None:
            asker.lines.stop()
    code = EXIT_INTERRUPTED if interrupted() else EXIT_CODES.get(outcome.state.status, 1)
    if stream is not None:
        stream.end(outcome.to_result(), code)
    elif output == "json":
        print(json.dumps(outcome.to_result(), indent=2))
    else:
        sys.stderr.write("\n")
        print(outcome.state.final_output or "")
        usage = outcome.state.usage
        if usage.total_tokens and not args.quiet:
            sys.stderr.write(
                f"tokens: {usage.prompt_tokens} prompt ({usage.cached_tokens} cached), "
                f"{usage.completion_tokens} completion"
                + (f", cost ${usage.cost:.4f}" if usage.cost is not None else "")
                + "\n"
            )
    return code


def output_format(args: argparse.Namespace) -> str:
    """``--output-format``, ``--json`` being ``--output-format json``."""
    chosen: str | None = getattr(args, "output_format", None)
    return chosen or ("json" if args.json else "text")


def _typed_messages(
    asker: TerminalAsker, terminal: TerminalObserver, mailbox: RunMessages
) -> TerminalMessages | None:
    """With a terminal on stdin, a line typed while the run works is a message to it
    (questions still get their answers); without one, stdin is never read."""
    from agentls.cli.terminal_input import TerminalLines, TerminalMessages

    if not asker.interactive:
        return None
    typed = TerminalMessages(mailbox, terminal.say)
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


def cli_attachments(attach: list[str], images: list[str]) -> list[Any]:
    """``--attach`` and ``--image`` as attachments; AttachmentError for an image that
    cannot be read (files are read with the run, confined to the workspace)."""
    import base64
    import mimetypes

    from agentls.agent.contract import Attachment
    from agentls.agent.prompts.attachments import AttachmentError

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
