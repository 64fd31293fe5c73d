"""The headless front end's rendering and asking: stderr for progress, the TTY for y/n.

Streamed text goes to stderr so stdout carries only the final answer (or JSON) and
can be piped. Asking needs a terminal: without one, confirm modes refuse sensitive
tools with a clear message instead of hanging on a prompt nobody can answer.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
from typing import IO, TYPE_CHECKING, Any

from agentls.agent.config.userdirs import user_config_file
from agentls.agent.context.meter import compaction_text, meter_text
from agentls.agent.errors import NoTTYError
from agentls.agent.events import (
    AgentEvent,
    ContextCompacted,
    ContextMeasured,
    InstructionsRead,
    Notice,
    PlanUpdated,
    StatusChanged,
    StreamRestarted,
    StreamText,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
    ToolStarted,
    WorktreeSetup,
)
from agentls.agent.policy.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    BaseApprover,
    EditRequest,
)
from agentls.agent.protected.edits import protected_targets
from agentls.agent.workspace import DiskFileAccess, EditOutcome, EditProposal, FileAccess

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig
    from agentls.agent.policy.program_approval import ProgramToApprove
    from agentls.cli.terminal_input import TerminalLines

NO_TTY_MESSAGE = (
    "confirmation needed but there is no terminal to ask (run with --mode yolo to allow "
    "sensitive tools without asking, or run in a terminal)"
)


#: The subagent whose edit the terminal is asked to confirm (empty: the run's own agent);
#: the approver sets it around the file access's ``apply``, which asks through the
#: asker's ``confirm_edit`` knowing nothing of who wants the change.
EDIT_AUTHOR: contextvars.ContextVar[str] = contextvars.ContextVar(
    "agentls_cli_edit_author", default=""
)


def who_asks(subagent: str) -> str:
    """The one who wants a call or a change: "The agent", or "The subagent explore"."""
    return f"The subagent {subagent}" if subagent else "The agent"


def args_text(args: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in args.items())


def subagent_line(event: SubagentEvent) -> str | None:
    """A subagent's work, indented under the run's ``delegate`` line: each tool call
    as it ends (``  explore › grep pattern=foo ✓ 3 matches``); the rest is its own."""
    inner = event.event
    if isinstance(inner, ToolFinished):
        mark = "✓" if inner.success else "✗"
        call = f"{inner.tool} {args_text(inner.args)}".rstrip()
        summary = inner.summary.splitlines()[0][:120] if inner.summary.strip() else ""
        return f"  {event.agent} › {call} {mark} {summary}".rstrip()
    if isinstance(inner, PlanUpdated):
        done = sum(1 for s in inner.steps if s.status == "done")
        return f"  {event.agent} › plan: {inner.goal} ({done}/{len(inner.steps)} done)"
    return None


def subagent_end_line(event: SubagentFinished) -> str:
    mark = {"success": "✓", "partial": "⚠"}.get(event.status, "✗")
    steps = f"{event.steps} step{'' if event.steps == 1 else 's'}"
    return (
        f"  {mark} {event.agent} {event.status}: {steps} · {event.total_tokens:,} tokens "
        f"({event.prompt_tokens:,} in, {event.completion_tokens:,} out)"
    )


def config_path() -> str:
    """The user config file, as a person would type it (``~/…`` under the home)."""
    path = str(user_config_file())
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def _use_color(stream: IO[str]) -> bool:
    return stream.isatty() and os.environ.get("NO_COLOR") is None


def colorize_diff(diff: str, color: bool) -> str:
    if not color:
        return diff
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(f"\x1b[1m{line}\x1b[0m")
        elif line.startswith("+"):
            out.append(f"\x1b[32m{line}\x1b[0m")
        elif line.startswith("-"):
            out.append(f"\x1b[31m{line}\x1b[0m")
        elif line.startswith("@@"):
            out.append(f"\x1b[36m{line}\x1b[0m")
        else:
            out.append(line)
    return "".join(out)


class RedactingStream:
    """A text stream that masks secrets (``agent.secrets.mask_outward``, the outward pass)
    in everything written through it, like the server's log.

    Text is held until a line ends; a ``flush`` (streamed model text flushes each chunk)
    writes up to the last whitespace and holds the rest, because a key never contains
    whitespace: a secret split across two chunks is still seen whole before it is shown.
    The words that introduce a secret and its value (``Bearer`` | ``abc...``) and a
    private key block are held until whole (``agent.secrets.HeldText``).
    """

    def __init__(self, inner: IO[str]) -> None:
        from agentls.agent.secrets import HeldText

        self.inner = inner
        self._held = HeldText()

    def write(self, text: str) -> int:
        self._emit(self._held.add(text, whole_lines=True))
        return len(text)

    def flush(self) -> None:
        self._emit(self._held.add("", whole_lines=False))
        self.inner.flush()

    def close_held(self) -> None:
        """Write what is still held (at exit)."""
        self._emit(self._held.rest())
        self.inner.flush()

    def _emit(self, masked: str) -> None:
        if masked:
            self.inner.write(masked)

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.inner, "encoding", "utf-8")


class LinePrinter:
    """Streamed text and whole lines on one text stream: a line never starts in the
    middle of streamed text."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._mid_line = False

    def stream(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
        self._mid_line = not text.endswith("\n")

    def line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")
        self.out.flush()


class TerminalObserver:
    """Prints streamed text and step progress to stderr."""

    def __init__(self, stream: IO[str] | None = None, *, quiet: bool = False) -> None:
        self.quiet = quiet
        self._printer = LinePrinter(stream or sys.stderr)
        self._line = self._printer.line
        #: A whole line, never in the middle of streamed text (even when quiet).
        self.say = self._printer.line
        #: The latest context meter, shown on the step lines.
        self._meter = ""
        #: The error notice printed last, which a failed status need not repeat.
        self._last_error: str | None = None

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, Notice):
            self._line(f"[{event.level}] {event.message}")
            self._last_error = event.message if event.level == "error" else None
            return
        if isinstance(event, WorktreeSetup):  # before the run, shown even when quiet
            self._line(_setup_line(event))
            return
        if self.quiet:
            return
        if isinstance(event, StatusChanged) and event.model:
            self._line(f"Model: {event.model}")  # as each loop starts (planner, builder)
            return
        if isinstance(event, InstructionsRead):
            what = "Instructions joined" if event.joined else "Instructions"
            self._line(f"{what}: {', '.join(event.files)}")
            return
        if isinstance(event, StreamText):
            self._printer.stream(event.text)
        elif isinstance(event, StreamRestarted):
            self._line(
                f"[stream cut: {event.reason}; the answer above is void and restarts "
                f"(attempt {event.attempt})]"
            )
        elif isinstance(event, ContextMeasured):
            self._meter = f" · context {meter_text(event)}"
        elif isinstance(event, ContextCompacted):
            self._line(f"[{compaction_text(event)}]")
        elif isinstance(event, SubagentStarted):
            how = " in the background" if event.background else ""
            model = f" ({event.model})" if event.model else ""
            self._line(f"  ↳ {event.agent}{model} started{how}: {event.task}")
        elif isinstance(event, SubagentEvent):
            line = subagent_line(event)
            if line is not None:
                self._line(line)
        elif isinstance(event, SubagentFinished):
            self._line(subagent_end_line(event))
        elif isinstance(event, ToolStarted):
            args = args_text(event.args)
            line = f"▶ step {event.step}/{event.max_steps} {event.tool} {args}".rstrip()
            self._line(line + self._meter)
        elif isinstance(event, ToolFinished):
            mark = "✓" if event.success else "✗"
            self._line(f"  {mark} {event.tool}: {event.summary}")
        elif isinstance(event, PlanUpdated):
            marks = {"done": "[x]", "in_progress": "[~]"}
            lines = [f"Plan: {event.goal}"] + [
                f"  {marks.get(s.status, '[ ]')} {s.text}" for s in event.steps
            ]
            self._line("\n".join(lines))
        elif (
            isinstance(event, StatusChanged)
            and event.detail
            and event.state in ("failed",)
            and event.detail != self._last_error  # said just now, as the error notice
        ):
            self._line(f"[{event.state}] {event.detail}")


def _setup_line(event: WorktreeSetup) -> str:
    if event.kind == "started":
        return f"agentls: setting up worktree {event.worktree}: $ {event.text}"
    return f"  {event.text}"


class TerminalAsker:
    """Asks y/n questions on the controlling terminal, off the event loop."""

    def __init__(self, stdin: IO[str] | None = None, stderr: IO[str] | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stderr = stderr or sys.stderr
        self.lock = asyncio.Lock()
        #: The run's reader of the terminal, when lines typed during the run are messages
        #: to it: the questions then read their answers through it.
        self.lines: TerminalLines | None = None

    @property
    def interactive(self) -> bool:
        try:
            return self.stdin.isatty()
        except (ValueError, OSError):
            return False

    async def readline(self) -> str:
        """The next line typed, "" at the end of the input."""
        if self.lines is not None:
            return await self.lines.readline()
        line: str = await asyncio.to_thread(self.stdin.readline)
        return line

    def disk_files(self, config: AppConfig) -> DiskFileAccess:
        """The workspace's files on disk; with a terminal, each edit is confirmed on it."""
        return DiskFileAccess(
            config.workspace.root,
            max_file_size=config.indexer.max_file_size,
            confirmer=self.confirm_edit if self.interactive else None,
        )

    async def ask(self, question: str, choices: str = "y/N") -> str:
        if not self.interactive:
            raise NoTTYError(NO_TTY_MESSAGE)
        async with self.lock:  # one question at a time, even with parallel tools
            self.stderr.write(f"{question} [{choices}] ")
            self.stderr.flush()
            line = await self.readline()
        return line.strip().lower()

    async def read_block(self, prompt: str) -> str:
        """Lines typed until one holding only ``.`` (code may contain blank lines)."""
        if not self.interactive:
            raise NoTTYError(NO_TTY_MESSAGE)
        async with self.lock:
            self.stderr.write(prompt + "\n")
            self.stderr.flush()
            lines: list[str] = []
            while True:
                line = await self.readline()
                if line == "" or line.rstrip("\n") == ".":
                    break
                lines.append(line)
        return "".join(lines).rstrip("\n")

    async def confirm_edit(self, proposal: EditProposal) -> bool:
        """The DiskFileAccess confirmer: show the diff, ask y/n. No TTY: refuse."""
        if not self.interactive:
            return False
        self.stderr.write(colorize_diff(proposal.diff, _use_color(self.stderr)))
        for reason in protected_targets(c.path for c in proposal.changes):
            self.stderr.write(f"Protected file: {reason}.\n")
        paths = ", ".join(c.path for c in proposal.changes)
        subagent = EDIT_AUTHOR.get()
        by = f" (the subagent {subagent}'s)" if subagent else ""
        answer = await self.ask(
            f"Apply this change{by} to {paths} (+{proposal.added} -{proposal.removed})?"
        )
        return answer in ("y", "yes")


class TerminalApprover(BaseApprover):
    """The Approver of the headless CLI. Edits are confirmed by the DiskFileAccess's
    confirmer (the same TerminalAsker), through the default ``confirm_edit``."""

    def __init__(self, asker: TerminalAsker) -> None:
        self.asker = asker

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        if not self.asker.interactive:
            return ApprovalAnswer("deny", message=NO_TTY_MESSAGE)
        lines = [f"\n{who_asks(request.subagent)} wants to run {request.tool} ({request.reason})."]
        if request.explanation:
            lines.append(request.explanation)
        if request.preview:
            lines.append(f"  {request.preview}")
        rule = request.suggested_rule
        if rule:
            lines.append(f"s = always allow `{rule}`: saved in your user config ({config_path()})")
        self.asker.stderr.write("\n".join(lines) + "\n")
        editable = request.editable_arg
        # "For this run" would not hold for a question the policy insists on: not offered.
        choices = "y = once" + ("" if request.insist else " / a = for this run")
        if rule:
            choices += " / s = always"
        choices += " / n = deny / q = abort"
        if editable:
            choices += f" / m = modify the {editable}"
        answer = await self.asker.ask("Allow?", choices)
        if answer == "m" and editable:
            new_value = await self.asker.read_block(
                f"New {editable} (end with a line holding only '.'):"
            )
            return ApprovalAnswer("modify", args={**request.args, editable: new_value})
        if answer == "s" and rule:
            return ApprovalAnswer("approve_always", rule=rule)
        kinds: dict[str, Any] = {"y": "approve", "yes": "approve", "q": "abort"}
        if not request.insist:
            kinds["a"] = "approve_run"
        return ApprovalAnswer(kinds.get(answer, "deny"))

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        """Confirmed by the file access's confirmer (the asker), told whose change it is."""
        author = EDIT_AUTHOR.set(request.subagent)
        try:
            return await files.apply(request.changes, confirm=True)
        finally:
            EDIT_AUTHOR.reset(author)

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        """The program as the user should see it, then y/N; no answer without a terminal
        (the run's notice then names the command that approves it)."""
        if not self.asker.interactive:
            return None
        answer = await self.asker.ask(f"\n{program.question()}")
        return answer in ("y", "yes")

    async def ask_user(self, question: str) -> str | None:
        """The question on stderr, the answer from the TTY; ``NoTTYError`` without one."""
        if not self.asker.interactive:
            raise NoTTYError("there is no terminal to ask the user")
        async with self.asker.lock:
            self.asker.stderr.write(f"\nThe agent asks: {question}\n> ")
            self.asker.stderr.flush()
            line = await self.asker.readline()
        return line.strip() or None
