"""Sessions: one append-only JSONL file per conversation, so a run survives a crash.

``<workspace>/.agentls/sessions/<sessionId>.jsonl`` holds one typed entry per line
(``type`` is the discriminator): ``run_start``, ``user_message``, ``note``,
``assistant_message``, ``tool_call``, ``tool_result``, ``approval_decision``,
``context_update``, ``plan``, ``run_finish``, ``compaction``, ``model_choice`` (the
user's ``/model``) and ``restore`` (the user undid runs: ``agent.checkpoints``). Every
entry carries ``run_id``, ``model_call_index`` and ``ts`` (seconds since the epoch); an
``assistant_message`` names the model that answered.
The entry models live in ``session_entries``; what a run writes through
(``SessionRecorder``, ``RecordingApprover``) in ``session_recorder``; this module is
the file store.

The rules:

- Every write is one ``write`` of a whole line, flushed and fsynced, under a lock per
  session file, so lines are never interleaved. The blocking write runs in a thread.
- Appends are idempotent: an entry with a key (``assistant_message`` by
  ``run_id + model_call_index``, tool entries by ``run_id + model_call_index +
  call_id``, the start and finish of a run by ``run_id``) that is already stored is
  not written again.
- A torn last line (the process died mid-write) is ignored on load and the next
  append starts on a fresh line; an unreadable line never makes a session unusable.
- A failed write raises ``SessionWriteError`` naming the path: the loop ends the run
  at once (memory and disk must not diverge).

``Session.history()`` rebuilds valid OpenAI messages from the entries. A tool call
with no stored result is answered with ``INTERRUPTED`` when it had started (a
``tool_call`` entry exists) and with ``NOT_STARTED`` when it never did, so the model
is never silently made to re-run something whose effect is unknown.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentls.agent.errors import AgentError
from agentls.agent.llm.models import assistant_tool_calls_message
from agentls.agent.secrets import mask_tree
from agentls.agent.sessions.entries import (
    AssistantMessage,
    CompactionEntry,
    Entry,
    ModelChoiceEntry,
    NoteEntry,
    RestoreEntry,
    RunFinishEntry,
    RunStartEntry,
    ToolCallEntry,
    ToolResultEntry,
    UserMessage,
    parse_entry,
)
from agentls.agent.text import one_line

log = logging.getLogger(__name__)

INTERRUPTED = (
    "Error: this tool call was interrupted; state unknown, check before retrying (the "
    "agent stopped while the call was running: it may or may not have taken effect)."
)
NOT_STARTED = "Error: this tool call was not executed: the run stopped before it started."
SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
TITLE_CHARS = 80


class SessionWriteError(AgentError):
    """A session entry could not be written (disk full, permissions, a bad path)."""


class SessionIdError(AgentError):
    """A session id that cannot name a file."""


# -- one session ------------------------------------------------------------------------

_FILE_LOCKS: dict[str, threading.Lock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    with _FILE_LOCKS_GUARD:
        return _FILE_LOCKS.setdefault(str(path.absolute()), threading.Lock())


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str
    updated: float
    status: str
    runs: int
    entries: int

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionId": self.id,
            "title": self.title,
            "updated": self.updated,
            "status": self.status,
            "runs": self.runs,
            "entries": self.entries,
        }


class Session:
    """The entries of one session file, loaded once and kept in step with each append."""

    def __init__(self, session_id: str, path: Path) -> None:
        self.id = session_id
        self.path = path
        self.entries: list[Entry] = []
        self.torn = False  # the file ends with a partial line
        self.skipped = 0  # unreadable lines ignored on load
        self._keys: set[tuple[str | int, ...]] = set()
        self._needs_newline = False
        self._lock = _lock_for(path)
        self._load()

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise SessionWriteError(f"cannot read session file {self.path}: {exc}") from exc
        if not data:
            return
        self._needs_newline = not data.endswith(b"\n")
        lines = data.split(b"\n")
        last = len(lines) - 1
        for number, raw in enumerate(lines):
            if not raw.strip():
                continue
            try:
                entry = parse_entry(raw)
            except ValidationError:
                if number == last:
                    self.torn = True
                    log.warning("session %s: ignoring a torn last line", self.path)
                else:
                    self.skipped += 1
                    log.warning("session %s: ignoring unreadable line %d", self.path, number + 1)
                continue
            self._remember(entry)

    def _remember(self, entry: Entry) -> None:
        self.entries.append(entry)
        key = entry.key()
        if key is not None:
            self._keys.add(key)

    # -- writing ----------------------------------------------------------------------
    def has(self, entry: Entry) -> bool:
        key = entry.key()
        return key is not None and key in self._keys

    def append_sync(self, entry: Entry) -> bool:
        """Write ``entry`` (flushed, fsynced). False when its key was already stored."""
        with self._lock:
            if self.has(entry):
                return False
            entry = _masked(entry)
            line = entry.model_dump_json().encode() + b"\n"
            if self._needs_newline:
                line = b"\n" + line  # never continue a torn line
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    view = memoryview(line)
                    while view:
                        written = os.write(fd, view)
                        view = view[written:]
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise SessionWriteError(
                    f"cannot write session file {self.path}: {exc.strerror or exc}"
                ) from exc
            self._needs_newline = False
            self._remember(entry)
            return True

    async def append(self, entry: Entry) -> bool:
        """``append_sync`` in a worker thread, so the event loop stays responsive."""
        return await asyncio.to_thread(self.append_sync, entry)

    # -- reading ----------------------------------------------------------------------
    def last_model_call_index(self, run_id: str) -> int:
        return max((e.model_call_index for e in self.entries if e.run_id == run_id), default=0)

    def result_for(self, run_id: str, index: int, call_id: str) -> ToolResultEntry | None:
        for entry in self.entries:
            if (
                isinstance(entry, ToolResultEntry)
                and entry.run_id == run_id
                and entry.model_call_index == index
                and entry.call_id == call_id
            ):
                return entry
        return None

    def model_choice(self) -> str | None:
        """The model the user chose for the session (its last ``/model``), or None."""
        chosen = [e for e in self.entries if isinstance(e, ModelChoiceEntry)]
        return chosen[-1].model if chosen else None

    def history(self) -> list[dict[str, Any]]:
        """The conversation as OpenAI chat messages (no system prompt)."""
        return rebuild_history(self.entries)

    def summary(self) -> SessionSummary:
        title = next((e.prompt for e in self.entries if isinstance(e, RunStartEntry)), "")
        title = one_line(title, TITLE_CHARS)
        runs = [e for e in self.entries if isinstance(e, RunStartEntry)]
        finished = {e.run_id: e for e in self.entries if isinstance(e, RunFinishEntry)}
        status = "empty"
        if runs:
            last = finished.get(runs[-1].run_id)
            status = last.status if last is not None else "interrupted"
        try:
            updated = self.path.stat().st_mtime
        except OSError:
            updated = max((e.ts for e in self.entries), default=0.0)
        return SessionSummary(self.id, title, updated, status, len(runs), len(self.entries))


#: How a compacted conversation starts, for the model of a later run.
COMPACTED_PREFIX = "[Summary of the conversation so far, compacted at the user's request]"


def _masked(entry: Entry) -> Entry:
    """``entry`` through the outward pass: a session file lands on disk (and in a CI
    run's artifacts), so no secret is written into it, whatever the entry holds. The
    masked entry is also the one kept in memory, so a resumed run and the file agree."""
    data = entry.model_dump(mode="json")
    masked = mask_tree(data)
    if masked == data:
        return entry
    return type(entry).model_validate(masked)


def rebuild_history(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """User, assistant (with ``tool_calls``) and tool messages, in order and always valid:
    every assistant tool call is followed by exactly one tool message."""
    items = list(entries)
    results: dict[tuple[str, int, str], ToolResultEntry] = {}
    started: set[tuple[str, int, str]] = set()
    for entry in items:
        if isinstance(entry, ToolResultEntry):
            results[(entry.run_id, entry.model_call_index, entry.call_id)] = entry
        elif isinstance(entry, ToolCallEntry):
            started.add((entry.run_id, entry.model_call_index, entry.call_id))
    restores = {e.run_id for e in items if isinstance(e, RestoreEntry)}
    messages: list[dict[str, Any]] = []
    for entry in items:
        if isinstance(entry, UserMessage | NoteEntry):
            messages.append({"role": "user", "content": entry.content})
        elif isinstance(entry, AssistantMessage):
            if not entry.tool_calls:
                messages.append({"role": "assistant", "content": entry.content or ""})
                continue
            messages.append(assistant_tool_calls_message(entry.content, entry.tool_calls))
            for call in entry.tool_calls:
                key = (entry.run_id, entry.model_call_index, call.id)
                result = results.get(key)
                if result is not None:
                    content = result.content
                elif key in started:
                    content = INTERRUPTED
                else:
                    content = NOT_STARTED
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        elif isinstance(entry, RestoreEntry):
            undo_of_undo = entry.restores in restores
            messages.append({"role": "user", "content": restore_note(entry, undo_of_undo)})
        elif isinstance(entry, CompactionEntry):
            messages = [{"role": "assistant", "content": f"{COMPACTED_PREFIX}\n{entry.summary}"}]
    return messages


def restore_note(entry: RestoreEntry, undo_of_undo: bool = False) -> str:
    """What the model of a later run is told about a restore: the conversation above still
    shows the undone runs' edits, and the files no longer hold them (or, for the undo of an
    undo, hold them again)."""
    partly = " (only partly: the user kept some of it)." if entry.status == "partial" else "."
    if undo_of_undo:
        first = (
            f"[The user undid their undo {entry.restores}: the files it had put back hold "
            "again what the runs left there" + partly
        )
    else:
        first = (
            f"[The user undid run {entry.restores} and every later run of this session: the "
            "workspace was put back as it was before that run" + partly
        )
    lines = [first]
    if entry.restored:
        lines.append("Files restored: " + ", ".join(entry.restored) + ".")
    if entry.conflicts:
        lines.append(
            "Changed by the user since, so left as they are: " + ", ".join(entry.conflicts) + "."
        )
    if entry.unrestorable:
        missing = (f"{u.get('path', '?')} ({u.get('reason', '?')})" for u in entry.unrestorable)
        lines.append("Could not be restored: " + ", ".join(missing) + ".")
    lines.append(
        "What the conversation above says about those files is out of date: read them again "
        "before relying on their content.]"
    )
    return "\n".join(lines)


# -- the store --------------------------------------------------------------------------


class SessionStore:
    """The session files under one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, session_id: str) -> Path:
        if not SESSION_ID_PATTERN.match(session_id):
            raise SessionIdError(
                f"invalid session id {session_id!r}: use letters, digits, '.', '_' or '-' "
                "(at most 128 characters)"
            )
        return self.root / f"{session_id}.jsonl"

    def exists(self, session_id: str) -> bool:
        return self.path_for(session_id).is_file()

    def open(self, session_id: str) -> Session:
        """The session (loaded); a new one has no entries and no file until the first append."""
        return Session(session_id, self.path_for(session_id))

    def list(self) -> list[SessionSummary]:
        """Every session, most recently updated first."""
        try:
            paths = [p for p in self.root.glob("*.jsonl") if p.is_file()]
        except OSError:
            return []
        summaries = []
        for path in paths:
            try:
                summaries.append(Session(path.stem, path).summary())
            except AgentError:
                log.warning("cannot read session %s", path)
        return sorted(summaries, key=lambda s: s.updated, reverse=True)


def store_for(root: Path, directory: Path) -> SessionStore:
    """The store of a workspace: ``directory`` is relative to the workspace root and
    reached through no symlink (``StatePathError`` otherwise)."""
    from agentls.agent.config.state_paths import state_path

    return SessionStore(state_path(root, directory))


__all__ = [
    "INTERRUPTED",
    "NOT_STARTED",
    "Session",
    "SessionIdError",
    "SessionStore",
    "SessionSummary",
    "SessionWriteError",
    "rebuild_history",
    "restore_note",
    "store_for",
]
