"""Hooks: commands a user (or, once trusted and approved, a repository) runs at events of
a run, in the format users already write for Claude Code.

Where they come from:

- the user's own config (``hooks`` in ``config.yaml``, or a ``--config`` file): obeyed;
- the workspace: ``.agentls/hooks.json``, ``.claude/settings.json``'s ``hooks`` and the
  ``hooks`` of ``.agentls.yaml``: only in a trusted folder, and only once the user approved
  that exact definition (``agentls hooks approve``, or the run's question: this module
  says what the hooks are, ``agent.policy.program_approval`` asks). The approval holds a
  digest of the file's hooks as written and of the contents of the workspace files their
  commands name (``"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh``, ``python3
  tools/hook.py``), so a changed hook or a changed script asks again, and those files are
  protected while the approval stands (``agent.protected.approved_files``). A repository's
  hook is a program with the user's rights.

What a hook command gets and may answer: the event as JSON on stdin (``hook_event_name``,
``session_id``, ``cwd``, and per event ``prompt``, ``tool_name``/``tool_input``,
``tool_response``, ``stop_hook_active``). Exit 0 goes on; its stdout, when it is a JSON
object with ``"decision": "block"`` (or ``"deny"``, or Claude Code's
``hookSpecificOutput.permissionDecision: "deny"``), blocks with its ``reason``; otherwise
the stdout of SessionStart and UserPromptSubmit hooks is context for the model. Exit 2
blocks, with stderr as the reason. Any other exit is reported to the user and does NOT
block: a hook that crashes must not stop the user's work. Of several hooks, one block is
enough. Commands run in the run's sandbox (when there is one) with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from agentls.agent.config.models import AppConfig, HookCommand, HookEvent, HookMatcher
from agentls.agent.errors import AgentError
from agentls.agent.exec.process import child_env
from agentls.agent.policy.program_approval import ProgramToApprove, WaitingProgram
from agentls.agent.protected.approved_files import (
    WorkspaceFile,
    files_named,
    visible,
    which,
    workspace_file,
)

log = logging.getLogger(__name__)

HooksTable = dict[HookEvent, list[HookMatcher]]


@functools.cache
def _table() -> TypeAdapter[HooksTable]:
    """The hooks table's validator, built when a table is first read (~15 ms)."""
    return TypeAdapter(HooksTable)


#: The workspace's hook files, by where they are read.
WORKSPACE_FILES = (".agentls/hooks.json", ".claude/settings.json", ".agentls.yaml")
#: What the hook's stdout may carry at most (more is cut).
MAX_OUTPUT = 16_000


class HooksError(AgentError):
    """A hooks definition that cannot be used (names the file and the problem)."""


@dataclass(frozen=True)
class HookSource:
    """The hooks of one place, with the digest an approval is stored under."""

    label: str
    table: HooksTable
    #: None: the user's own, needing no approval.
    digest: str | None = None


@dataclass
class HookOutcome:
    """What the hooks of one event decided."""

    blocked: bool = False
    reasons: list[str] = field(default_factory=list)
    #: Text the hooks added for the model (SessionStart, UserPromptSubmit).
    context: list[str] = field(default_factory=list)
    #: What the user should hear (a hook that failed, timed out, printed nonsense).
    problems: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons) or "a hook blocked it (no reason given)"


def parse_table(data: Any, label: str) -> HooksTable:
    """A ``hooks`` mapping validated, or HooksError naming the file and the problem."""
    try:
        return _table().validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise HooksError(f"{label}: hooks.{where}: {first['msg']}") from None


#: The variables a hook command may use for the workspace root (set when it runs).
_ROOT_VARIABLES = ("CLAUDE_PROJECT_DIR", "AGENTLS_PROJECT_DIR")
#: What the digest format is: approvals stored by an older agentls (which held the
#: commands alone) do not match, so they ask again.
DIGEST_FORMAT = 2


def command_words(command: str, root: Path) -> list[str]:
    """The words of a shell command, the project-dir variables replaced by ``root``, to
    find the files it runs. A command shlex cannot split is split on blanks: a word
    missed here is a file not pinned, so be generous."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        words = command.split()
    found = []
    for word in words:
        for name in _ROOT_VARIABLES:
            word = word.replace("${" + name + "}", str(root)).replace("$" + name, str(root))
        found.append(word)
    return found


def command_files(command: str, root: Path) -> list[WorkspaceFile]:
    """The workspace files one hook command names (it runs in the workspace root), and a
    bare program name that PATH finds inside the workspace (a relative PATH entry)."""
    words = command_words(command, root)
    found = files_named(words, root, root)
    search = os.environ.get("PATH", os.defpath)
    for word in words:
        if word and "/" not in word:
            located = which(word, search, root)
            hit = workspace_file(located, root, root) if located else None
            if hit is not None and hit.path not in {item.path for item in found}:
                found.append(hit)
    return found


def hook_files(table: HooksTable, root: Path) -> list[WorkspaceFile]:
    """The workspace files the commands of ``table`` name, each once."""
    found: dict[str, WorkspaceFile] = {}
    for matchers in table.values():
        for matcher in matchers:
            for hook in matcher.hooks:
                for item in command_files(hook.command, root):
                    found.setdefault(item.path, item)
    return list(found.values())


def table_digest(table: HooksTable, root: Path) -> str:
    """A digest of the hooks as written and of the workspace files their commands name."""
    plain = {event: [m.model_dump() for m in matchers] for event, matchers in table.items()}
    files = sorted(item.digest_part() for item in hook_files(table, root))
    whole = {"format": DIGEST_FORMAT, "hooks": plain, "files": files}
    text = json.dumps(whole, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def workspace_sources(root: Path) -> tuple[list[HookSource], list[str]]:
    """The workspace's hook files (never symlinks), and the problems of those that
    cannot be read."""
    sources: list[HookSource] = []
    problems: list[str] = []
    for relative in WORKSPACE_FILES:
        path = root / relative
        if path.is_symlink() or not path.is_file():
            continue
        import yaml  # here: a workspace without hook files never needs it (~20 ms)

        try:
            text = path.read_text(encoding="utf-8")
            data = yaml.safe_load(text) if path.suffix == ".yaml" else json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
            problems.append(f"{relative}: cannot read its hooks: {exc}")
            continue
        hooks = data.get("hooks") if isinstance(data, Mapping) else None
        if relative == ".agentls/hooks.json" and isinstance(data, Mapping) and hooks is None:
            hooks = data  # the file may hold the table itself
        if not hooks:
            continue
        try:
            table = parse_table(hooks, relative)
        except HooksError as exc:
            problems.append(str(exc))
            continue
        sources.append(HookSource(relative, table, table_digest(table, root)))
    return sources, problems


def approve_command(root: Path) -> str:
    return f"agentls hooks approve --workspace {shlex.quote(str(root))}"


@dataclass
class LoadedHooks:
    """The hooks a run obeys, and what the user must hear about the others."""

    sources: list[HookSource]
    notices: list[str] = field(default_factory=list)


def load_hooks(config: AppConfig, root: Path, *, trusted: bool) -> LoadedHooks:
    """The user's hooks, and the workspace's when the folder is trusted and the user
    approved each file's hooks as they are now."""
    from agentls.agent.config.trust import TrustStore

    loaded = LoadedHooks([HookSource("your config", config.hooks)] if config.hooks else [])
    found, problems = workspace_sources(root)
    loaded.notices.extend(problems)
    if not found:
        return loaded
    if not trusted:
        names = ", ".join(source.label for source in found)
        loaded.notices.append(f"the hooks of {names} do not run: this folder is not trusted")
        return loaded
    store = TrustStore()
    for source in found:
        assert source.digest is not None
        approved = store.approved_digest(root, "hooks", source.label)
        if approved == source.digest:
            loaded.sources.append(source)
            continue
        how = "changed since you approved them" if approved else "not approved"
        loaded.notices.append(
            f"the hooks of {source.label} do not run: {how}. To allow them, run "
            f"`{approve_command(root)}`"
        )
    return loaded


def hook_lines(table: HooksTable, root: Path) -> list[str]:
    """Each command of ``table`` as a person reviews it (``PreToolUse [execute_command]:
    ./guard.sh``), each followed by the workspace files it runs, with a fingerprint each."""
    lines = []
    for event, matchers in table.items():
        for matcher in matchers:
            where = f" [{visible(matcher.matcher)}]" if matcher.matcher else ""
            for hook in matcher.hooks:
                lines.append(f"{event}{where}: {visible(hook.command)}")
                lines += [
                    f"  runs or reads workspace file {visible(item.describe())}"
                    for item in command_files(hook.command, root)
                ]
    return lines


def hooks_program(source: HookSource, root: Path, *, changed: bool) -> ProgramToApprove:
    """A workspace file's hooks as the user is asked about them."""
    assert source.digest is not None
    label = visible(source.label)
    headline = (
        f"The hooks of {label} changed since you approved them (a command, or a file one "
        "runs). Allow the new hooks to run?"
        if changed
        else f"Allow the hooks of {label} to run?"
    )
    return ProgramToApprove(
        kind="hooks",
        name=source.label,
        source=source.label,
        root=root,
        headline=headline,
        lines=tuple(hook_lines(source.table, root)),
        files=tuple(visible(item.describe()) for item in hook_files(source.table, root)),
        warning="Each runs as a program with your permissions, and a hook can block or "
        "change what the agent does. Allow them only if you trust this repository.",
        digest=source.digest,
        changed=changed,
    )


def hooks_waiting(root: Path) -> list[WaitingProgram]:
    """The workspace's hook files whose hooks, as they are now, are not approved (only
    ask about them in a trusted folder: an untrusted one's hooks never run)."""
    from agentls.agent.config.trust import TrustStore

    store = TrustStore()
    found, _ = workspace_sources(root)
    waiting = []
    for source in found:
        approved = store.approved_digest(root, "hooks", source.label)
        if approved != source.digest:
            program = hooks_program(source, root, changed=approved is not None)
            waiting.append(WaitingProgram(program, partial(_digest_now, root, source.label)))
    return waiting


def hooks_to_approve(root: Path) -> list[ProgramToApprove]:
    """The workspace's hook files that wait for the user's approval."""
    return [item.program for item in hooks_waiting(root)]


def _digest_now(root: Path, label: str) -> str | None:
    """The digest of ``label``'s hooks as they are now (None: it has none any more)."""
    now, _ = workspace_sources(root)
    return next((source.digest for source in now if source.label == label), None)


def approve_workspace_hooks(root: Path) -> list[str]:
    """Approve every hook file of the workspace as it is now; the labels approved."""
    from agentls.agent.config.trust import TrustStore

    found, problems = workspace_sources(root)
    if problems:
        raise HooksError("; ".join(problems))
    store = TrustStore()
    for source in found:
        assert source.digest is not None
        store.approve(root, "hooks", source.label, source.digest)
    return [source.label for source in found]


def matches(matcher: str, tool: str | None) -> bool:
    if matcher in ("", "*") or tool is None:
        return True
    try:
        return re.fullmatch(matcher, tool) is not None
    except re.error:
        return matcher == tool


class HookRunner:
    """Runs the hooks of a run's events. ``wrap`` puts a command in the run's sandbox."""

    def __init__(
        self,
        sources: Sequence[HookSource],
        root: Path,
        session_id: str,
        *,
        wrap: Any = None,
    ) -> None:
        self.sources = list(sources)
        self.root = root
        self.session_id = session_id
        self._wrap = wrap

    def has(self, event: HookEvent) -> bool:
        return any(source.table.get(event) for source in self.sources)

    async def run(
        self, event: HookEvent, payload: Mapping[str, Any], *, tool: str | None = None
    ) -> HookOutcome:
        outcome = HookOutcome()
        body = {
            "hook_event_name": event,
            "session_id": self.session_id,
            "cwd": str(self.root),
            **payload,
        }
        stdin = json.dumps(body, default=str).encode("utf-8")
        for source in self.sources:
            for matcher in source.table.get(event, []):
                if not matches(matcher.matcher, tool):
                    continue
                for hook in matcher.hooks:
                    await self._one(hook, stdin, event, source, outcome)
        return outcome

    async def _one(
        self,
        hook: HookCommand,
        stdin: bytes,
        event: HookEvent,
        source: HookSource,
        outcome: HookOutcome,
    ) -> None:
        command, timeout = hook.command, hook.timeout
        name = f"{event} hook `{command}` ({source.label})"
        argv = ["bash", "-c", command]
        if self._wrap is not None:
            argv = self._wrap(argv, self.root)
        # What a hook prints can reach the model, like a command's output: it gets a
        # command's environment (no API key, no secret-looking variable).
        env = {
            **child_env(),
            "AGENTLS_PROJECT_DIR": str(self.root),
            "CLAUDE_PROJECT_DIR": str(self.root),
        }
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                cwd=self.root,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            outcome.problems.append(f"{name} could not start: {exc}")
            return
        try:
            out, err = await asyncio.wait_for(process.communicate(stdin), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            await process.wait()
            outcome.problems.append(f"{name} timed out after {timeout:g} s and was stopped")
            return
        stdout = out.decode("utf-8", "replace")[:MAX_OUTPUT]
        stderr = err.decode("utf-8", "replace")[:MAX_OUTPUT].strip()
        if process.returncode == 2:
            outcome.blocked = True
            outcome.reasons.append(stderr or f"{name} exited with 2")
            return
        if process.returncode != 0:
            tail = f": {stderr.splitlines()[-1]}" if stderr else ""
            outcome.problems.append(
                f"{name} failed (exit {process.returncode}){tail}; it did not block "
                "(only exit 2 or a block decision blocks)"
            )
            return
        self._read_answer(stdout, event, name, outcome)

    @staticmethod
    def _read_answer(stdout: str, event: HookEvent, name: str, outcome: HookOutcome) -> None:
        text = stdout.strip()
        if not text:
            return
        answer: Any = None
        if text.startswith("{"):
            try:
                answer = json.loads(text)
            except ValueError:
                outcome.problems.append(f"{name} printed something that is not JSON; ignored")
                return
        if isinstance(answer, dict):
            specific = answer.get("hookSpecificOutput")
            specific = specific if isinstance(specific, dict) else {}
            decision = answer.get("decision") or specific.get("permissionDecision")
            if decision in ("block", "deny"):
                outcome.blocked = True
                reason = answer.get("reason") or specific.get("permissionDecisionReason")
                outcome.reasons.append(str(reason or f"{name} blocked it"))
            added = specific.get("additionalContext") or answer.get("additionalContext")
            if added and event in ("SessionStart", "UserPromptSubmit"):
                outcome.context.append(str(added))
            return
        if event in ("SessionStart", "UserPromptSubmit"):
            outcome.context.append(text)
