"""execute_command and python_executor: run things in the workspace.

Both are sensitive: under ``confirm-sensitive`` a human is asked first, with a
plain-words explanation and the exact command or code (``describe_for_approval``).
``execute_command`` tells the policy its command line (``shell_command``): the command
rules (``agent.policy.command_rules``) deny it, ask about it, or let it skip the question
when every part matches an allow rule. Python is not a shell command: no rule applies
to it, and it always asks (unless ``yolo``). Both run in their own process group
with a timeout (``agent.exec.process``), under bubblewrap when available
(``agent.exec.sandbox``), and report exit code, bounded output and the files they changed.
Afterwards the protected files a command created or replaced are removed, sandbox or
not, and the result says so (``agent.protected.planted_files``).
"""

from __future__ import annotations

import ast
import asyncio
import logging
import os
import shutil
import signal
import sys
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.config.models import AgentConfig
from agentls.agent.errors import AgentError
from agentls.agent.exec.command_mirror import CommandMirror
from agentls.agent.exec.process import (
    ChangesProbe,
    FileSnapshotProbe,
    ProcessResult,
    child_env,
    redact,
    run_process,
)
from agentls.agent.exec.sandbox import SandboxMode, make_sandbox, no_sandbox_note
from agentls.agent.policy.command_rules import suggest_rule
from agentls.agent.policy.shell_policy import analyze, describe
from agentls.agent.protected.planted_files import Settled, Survey, settle, survey
from agentls.agent.tools.base import RunContext, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from agentls.agent.llm.protocol import LLM

log = logging.getLogger(__name__)

#: The model may ask for longer than the configured default, up to this (or the default).
MAX_TIMEOUT = 600
EXPLAIN_TIMEOUT = 10.0
SHOWN_CHANGED_FILES = 10


@dataclass(frozen=True)
class ExecSettings:
    sandbox: SandboxMode
    network: bool
    command_timeout: int

    @classmethod
    def from_agent(cls, agent: AgentConfig | None) -> ExecSettings:
        if agent is not None:
            return cls(agent.sandbox, agent.network, agent.command_timeout)
        fields = AgentConfig.model_fields
        return cls(
            fields["sandbox"].default, fields["network"].default, fields["command_timeout"].default
        )


def settings_for(ctx: ToolContext) -> ExecSettings:
    """The running agent's settings (the engine puts the AgentConfig of the call in
    ``ctx.agent``); defaults when a context has none."""
    return ExecSettings.from_agent(ctx.agent)


def effective_timeout(requested: int | None, settings: ExecSettings) -> int:
    cap = max(settings.command_timeout, MAX_TIMEOUT)
    return min(requested or settings.command_timeout, cap)


class ExecuteCommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(description="A shell command line, run with bash -c.")
    timeout: int | None = Field(
        default=None,
        ge=1,
        description=f"Seconds before the command is killed (default from config, max "
        f"{MAX_TIMEOUT} unless the configured default is higher).",
    )
    cwd: str = Field(default=".", description="Working directory, relative to the workspace root.")


class PythonExecutorArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Python source to run in a fresh interpreter.")
    timeout: int | None = Field(
        default=None, ge=1, description="Seconds before the run is killed (default from config)."
    )


def _shell() -> str:
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"


def workspace_python(root: Path) -> str:
    """The workspace's own interpreter when it has a .venv, else ours."""
    candidate = root / ".venv" / "bin" / "python"
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return str(candidate)
    return sys.executable


def interpreter_note(root: Path) -> str:
    """Which interpreter python_executor runs, for the human approving it: the
    workspace's ``.venv`` is a program the repository provides, so the question says
    so, and where a symlinked one really leads."""
    path = workspace_python(root)
    if path == sys.executable:
        return f"Interpreter: {path} (agentls's own; the workspace has no .venv/bin/python)."
    real = os.path.realpath(path)
    note = f"Interpreter: {path}, the workspace's own .venv, which the repository provides"
    if real != os.path.abspath(path):
        inside = real.startswith(os.path.realpath(root) + os.sep)
        note += f"; it is a symlink to {real}" + (", inside the workspace" if inside else "")
    return note + "."


def _exit_text(result: ProcessResult, limit: int) -> str:
    if result.timed_out:
        return f"Timed out after {limit} s; the command and all its processes were killed."
    code = result.exit_code
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"Killed by {name}."
    return f"Exit code: {code}"


RunnerArgsT = TypeVar("RunnerArgsT", ExecuteCommandArgs, PythonExecutorArgs)


def format_changed(paths: list[str]) -> str:
    shown = ", ".join(paths[:SHOWN_CHANGED_FILES])
    more = len(paths) - SHOWN_CHANGED_FILES
    return f"Files changed: {shown}" + (f" (+{more} more)" if more > 0 else "")


class _Runner(Tool[RunnerArgsT]):
    """What both tools share: the empty check, the approval text, sandbox, probe,
    process, report. A tool says what its source is and how to start it."""

    sensitive: ClassVar[bool] = True
    interruptible: ClassVar[bool] = True
    #: The argument that holds the source: what a human approves and may edit.
    editable_arg: ClassVar[str]
    #: What the source is called when the model is asked to explain it.
    explained: ClassVar[str]

    def __init__(self) -> None:
        self._warned_runs: set[str] = set()

    def source(self, args: RunnerArgsT) -> str:
        """The command or code the call runs."""
        return str(getattr(args, self.editable_arg))

    @abstractmethod
    def summary(self, source: str) -> str:
        """A deterministic plain-words summary, when the model cannot explain it."""

    @abstractmethod
    async def start(self, args: RunnerArgsT, ctx: ToolContext) -> ToolResult:
        """Run a non-empty source (``_execute`` with the tool's argv)."""

    async def run(self, args: RunnerArgsT, ctx: ToolContext) -> ToolResult:
        if not self.source(args).strip():
            return ToolResult.fail(f"The {self.editable_arg} is empty.")
        return await self.start(args, ctx)

    async def describe_for_approval(self, args: RunnerArgsT, run: RunContext) -> tuple[str, str]:
        source = self.source(args)
        explanation = await _model_explanation(run.llm, self.explained, source)
        return explanation or self.summary(source), source

    async def _execute(
        self,
        ctx: ToolContext,
        argv: list[str],
        cwd: Path,
        requested_timeout: int | None,
        *,
        stdin_data: bytes | None = None,
        label: str,
        shown: str,
    ) -> ToolResult:
        """Runs ``argv``; ``shown`` is the command as a person reads it (in a mirror)."""
        settings = settings_for(ctx)
        limit = effective_timeout(requested_timeout, settings)
        root = Path(ctx.run.files.root)
        sandbox = make_sandbox(root, settings.sandbox, settings.network)
        elsewhere = ctx.run.process_runner if stdin_data is None else None
        sandboxed = elsewhere is None and sandbox.active
        # A read-only sandbox lets the command write nothing: no protected path to watch.
        watched = None
        if not (sandboxed and sandbox.mode == "read-only"):
            watched = await _safe_survey(root, ctx.run.protected_extra)
        probe: ChangesProbe = ctx.run.changes_probe or FileSnapshotProbe(
            root, ctx.run.config.indexer
        )
        before = await _safe_snapshot(probe)
        mirror: CommandMirror | None = None
        try:
            if elsewhere is not None:
                result = await elsewhere(argv, cwd=cwd, time_limit=limit)
            else:
                mirror = CommandMirror(ctx.run.observer, ctx.call_id, self.name, shown)
                result = await run_process(
                    sandbox.wrap(argv, cwd, watched.paths if watched is not None else None),
                    cwd=cwd,
                    env=child_env(),
                    time_limit=limit,
                    stdin_data=stdin_data,
                    on_output=mirror.feed,
                )
                mirror.end(result.exit_code, timed_out=result.timed_out)
        except OSError as exc:
            if mirror is not None:
                mirror.end(None)
            return ToolResult.fail(f"Could not start {label}: {exc}")
        except asyncio.CancelledError:
            if mirror is not None:
                mirror.end(None)
            # Stopped midway, all its processes gone: still undo what it planted.
            await _safe_settle(watched, [], sandboxed=sandboxed)
            raise
        changed = await _safe_changed(probe, before)
        settled = await _safe_settle(watched, changed, sandboxed=sandboxed)
        changed = [path for path in changed if not settled.hides(path)]

        lines = [_exit_text(result, limit)]
        output = redact(result.output)
        lines.append(output.rstrip("\n") if output.strip() else "(no output)")
        if result.stragglers:
            lines.append(
                f"Note: {result.stragglers} background process(es) still running when the "
                "command ended were stopped; commands cannot leave processes behind."
            )
        if elsewhere is None:
            lines += sandbox.explain_failure(output, result.exit_code)
        if elsewhere is None and sandbox.missing and ctx.run.run_id not in self._warned_runs:
            self._warned_runs.add(ctx.run.run_id)
            lines.append(no_sandbox_note())
        lines += settled.notes
        if changed:
            lines.append(format_changed(changed))
        text = "\n".join(lines)
        if result.exit_code == 0 and not result.timed_out:
            return ToolResult.ok(text)
        return ToolResult.fail(text, error=lines[0])

    def _resolve_cwd(self, ctx: ToolContext, cwd: str) -> Path | ToolResult:
        try:
            target = ctx.run.files.resolve(cwd)
        except AgentError as exc:
            return ToolResult.fail(f"Invalid cwd: {exc}. Use a directory inside the workspace.")
        if not target.is_dir():
            return ToolResult.fail(f"Invalid cwd: {cwd} is not a directory in the workspace.")
        return target


async def _safe_survey(root: Path, extra: Mapping[str, str]) -> Survey | None:
    try:
        return await asyncio.to_thread(survey, root, extra)
    except Exception:  # the sandbox then looks for the protected paths itself
        log.warning("could not list the protected paths before a command", exc_info=True)
        return None


async def _safe_settle(watched: Survey | None, changed: list[str], *, sandboxed: bool) -> Settled:
    if watched is None:
        return Settled()
    try:
        return await asyncio.to_thread(settle, watched, changed, sandboxed=sandboxed)
    except Exception:
        log.warning("could not check the protected paths after a command", exc_info=True)
        return Settled(["agentls could not check whether the command planted protected files."])


async def _safe_snapshot(probe: ChangesProbe) -> Any:
    try:
        return await probe.snapshot()
    except Exception:  # a broken probe must not stop the command
        log.warning("changes probe failed to snapshot", exc_info=True)
        return None


async def _safe_changed(probe: ChangesProbe, before: Any) -> list[str]:
    if before is None:
        return []
    try:
        return list(await probe.changed_since(before))
    except Exception:
        log.warning("changes probe failed", exc_info=True)
        return []


async def _model_explanation(llm: LLM | None, what: str, text: str) -> str:
    """One short model call; '' when there is no model or it fails or is slow."""
    if llm is None:
        return ""
    messages = [
        {
            "role": "system",
            "content": f"Explain in one or two plain sentences what this {what} will do, "
            "for a user deciding whether to allow it. Mention anything destructive or "
            "any network use. No preamble, no code.",
        },
        {"role": "user", "content": text},
    ]
    try:
        async with asyncio.timeout(EXPLAIN_TIMEOUT):
            response = await llm.completion(messages)
    except Exception:  # any failure falls back to the deterministic summary
        log.info("approval explanation from the model failed", exc_info=True)
        return ""
    return " ".join((response.content or "").split())[:600]


class ExecuteCommandTool(_Runner[ExecuteCommandArgs], name="execute_command"):
    """Run a shell command (bash -c) in the workspace and return its exit code and output (stdout
    and stderr interleaved, long output cut in the middle). Runs sandboxed when available: only the
    workspace is writable, no network. Use it for tests, builds, git; prefer the file tools to read
    or edit files."""

    editable_arg: ClassVar[str] = "command"
    explained: ClassVar[str] = "shell command"

    def summary(self, source: str) -> str:
        return describe(analyze(source))

    async def start(self, args: ExecuteCommandArgs, ctx: ToolContext) -> ToolResult:
        cwd = self._resolve_cwd(ctx, args.cwd)
        if isinstance(cwd, ToolResult):
            return cwd
        if ctx.run.dry_run:
            return ToolResult.ok(f"Dry run: would run `{args.command}` in {args.cwd}.")
        return await self._execute(
            ctx,
            [_shell(), "-c", args.command],
            cwd,
            args.timeout,
            label="the command",
            shown=args.command,
        )

    def shell_command(self, args: dict[str, Any]) -> str | None:
        command = args.get("command")
        return command if isinstance(command, str) else None

    def suggested_rule(self, args: dict[str, Any]) -> str | None:
        command = self.shell_command(args)
        return suggest_rule(command) if command is not None else None


class PythonExecutorTool(_Runner[PythonExecutorArgs], name="python_executor"):
    """Run Python code in a fresh interpreter (the workspace's .venv if it has one), with the
    workspace as working directory, and return its exit code and output. Print what you want to see.
    Sandboxed like execute_command."""

    editable_arg: ClassVar[str] = "code"
    explained: ClassVar[str] = "Python code"

    def summary(self, source: str) -> str:
        return describe_python(source)

    async def describe_for_approval(
        self, args: PythonExecutorArgs, run: RunContext
    ) -> tuple[str, str]:
        explanation, preview = await super().describe_for_approval(args, run)
        return f"{explanation}\n{interpreter_note(Path(run.files.root))}", preview

    async def start(self, args: PythonExecutorArgs, ctx: ToolContext) -> ToolResult:
        root = Path(ctx.run.files.root)
        if ctx.run.dry_run:
            return ToolResult.ok("Dry run: would run the Python code in the workspace.")
        # The code goes through stdin, not -c: argv strings are capped at 128 KiB.
        return await self._execute(
            ctx,
            [workspace_python(root), "-u", "-"],
            root,
            args.timeout,
            stdin_data=args.code.encode("utf-8"),
            label="Python",
            shown=f"python - <<'EOF'\n{args.code.rstrip()}\nEOF",
        )

    # Python is not a shell command: no command rule applies to it, so it always asks
    # (unless yolo): the base class's auto_approval and shell_command say so.


def describe_python(code: str) -> str:
    """A deterministic summary: size, imports and the risky calls it makes."""
    lines = len(code.splitlines())
    head = f"Runs {lines} line{'s' if lines != 1 else ''} of Python in a fresh interpreter"
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return f"{head}; it does not parse ({exc.msg}, line {exc.lineno}), so it will fail."
    imports: list[str] = []
    calls: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            imports.append(node.module)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                calls.add(f"{func.value.id}.{func.attr}")
            elif isinstance(func, ast.Name):
                calls.add(func.id)
    parts = [head]
    if imports:
        parts.append("imports " + ", ".join(dict.fromkeys(imports)))
    risky = sorted(
        c
        for c in calls
        if c
        in {
            "os.system",
            "os.remove",
            "os.unlink",
            "os.rmdir",
            "shutil.rmtree",
            "subprocess.run",
            "subprocess.Popen",
            "subprocess.call",
            "subprocess.check_call",
            "subprocess.check_output",
            "eval",
            "exec",
            "open",
        }
    )
    if risky:
        parts.append("calls " + ", ".join(risky))
    return "; ".join(parts) + "."
