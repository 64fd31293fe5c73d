"""Checkpoints: what each run changed, kept so a whole run can be undone.

Before a run changes a file the first time, the file's previous bytes and mode go
into a content-addressed blob store next to the session file
(``<sessions>/<session>.checkpoints/``), and one line in ``record.jsonl`` says which
run touched which path, what it held before and what the run left there. Everything
needed to restore lives on disk, so a restore works after the server was killed.

``CheckpointingFiles`` wraps any ``FileAccess`` (disk or the editor's buffers): it is
the one place every tool write passes through. ``plan_restore`` turns the record into
the changes that put the workspace back before a run (later runs of the session are
undone too); ``restore`` applies them through a FileAccess, so the user confirms them
like any other agent edit, and records the restore as a run of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import stat
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentls.agent.config import IndexerConfig
from agentls.agent.errors import ValidationError
from agentls.agent.session_entries import RestoreEntry
from agentls.agent.sessions import Session, SessionStore, SessionWriteError
from agentls.agent.workspace import (
    EditOutcome,
    FileAccess,
    FileChange,
    TextFile,
    is_binary,
)

#: Asked before a restore writes back files that are not text (their paths): True writes.
BytesConfirmer = Callable[[list[str]], Awaitable[bool]]

#: Blobs beyond this total are not kept; the file is listed as not restorable.
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FileState(BaseModel):
    """A file's content (by digest) and mode; ``sha=None`` means it did not exist."""

    sha: str | None = None
    mode: int | None = None
    #: Why the bytes were not kept (too big for the store); such a file cannot be restored.
    missing: str | None = None


class RecordLine(BaseModel):
    run: str
    kind: str = "run"  # "run" or "restore"
    at: float = 0.0
    path: str | None = None
    before: FileState | None = None  # the first touch of ``path`` in ``run``
    after: FileState | None = None  # the latest state the run left at ``path``
    restores: str | None = None  # for kind="restore": the run restored to


@dataclass
class RunCheckpoint:
    run_id: str
    kind: str
    at: float
    restores: str | None = None
    before: dict[str, FileState] = field(default_factory=dict)
    after: dict[str, FileState] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        files = [
            {"path": path, "change": _change_kind(self.before[path], self.after.get(path))}
            for path in self.before
        ]
        return {
            "runId": self.run_id,
            "kind": self.kind,
            "at": self.at,
            "restores": self.restores,
            "files": files,
        }


def _change_kind(before: FileState, after: FileState | None) -> str:
    if before.sha is None:
        return "created"
    if after is not None and after.sha is None:
        return "deleted"
    return "modified"


_locks: dict[Path, threading.Lock] = {}


class CheckpointStore:
    """Blobs and the record of one session."""

    def __init__(self, directory: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.dir = directory
        self.blobs = directory / "blobs"
        self.record = directory / "record.jsonl"
        self.max_bytes = max_bytes
        self._lock = _locks.setdefault(directory, threading.Lock())

    @classmethod
    def for_session(cls, sessions: SessionStore, session_id: str) -> CheckpointStore:
        # path_for validates the id, so the directory cannot escape the store.
        return cls(sessions.path_for(session_id).with_suffix(".checkpoints"))

    def session(self) -> Session:
        """The session these checkpoints belong to (its file sits next to the directory)."""
        return Session(self.dir.name.removesuffix(".checkpoints"), self.dir.with_suffix(".jsonl"))

    # -- blobs -------------------------------------------------------------------
    def used_bytes(self) -> int:
        try:
            return sum(p.stat().st_size for p in self.blobs.iterdir())
        except OSError:
            return 0

    def put(self, data: bytes) -> str | None:
        """Keep ``data``; None when the store is full."""
        digest = sha256(data)
        target = self.blobs / digest
        if target.exists():
            return digest
        if self.used_bytes() + len(data) > self.max_bytes:
            return None
        self.blobs.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{uuid.uuid4().hex}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        return digest

    def get(self, digest: str) -> bytes | None:
        try:
            data = (self.blobs / digest).read_bytes()
        except OSError:
            return None
        return data if sha256(data) == digest else None

    # -- record ------------------------------------------------------------------
    def append(self, line: RecordLine) -> None:
        with self._lock:
            self.dir.mkdir(parents=True, exist_ok=True)
            with self.record.open("a", encoding="utf-8") as handle:
                handle.write(line.model_dump_json(exclude_none=True) + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def runs(self) -> list[RunCheckpoint]:
        """Every recorded run, oldest first (a torn last line is skipped)."""
        runs: dict[str, RunCheckpoint] = {}
        try:
            text = self.record.read_text(encoding="utf-8")
        except OSError:
            return []
        for raw in text.splitlines():
            try:
                line = RecordLine.model_validate(json.loads(raw))
            except (ValueError, TypeError):
                continue
            run = runs.get(line.run)
            if run is None:
                run = runs[line.run] = RunCheckpoint(line.run, line.kind, line.at, line.restores)
            if line.path is None:
                continue
            if line.before is not None and line.path not in run.before:
                run.before[line.path] = line.before
            if line.after is not None:
                run.after[line.path] = line.after
        return [r for r in runs.values() if r.before or r.kind == "restore"]


def edited_recently(store: CheckpointStore, limit: int = 8) -> list[str]:
    """The files the session's runs changed, newest run first, that still exist: what
    the user and the agent have been working on, whatever their modification times say."""
    seen: dict[str, None] = {}
    for run in reversed(store.runs()):
        for path in run.before:
            after = run.after.get(path)
            if after is not None and after.sha is None:
                continue  # the run deleted it
            seen.setdefault(path, None)
    return list(seen)[:limit]


def read_state(path: Path) -> tuple[bytes | None, int | None]:
    """Bytes and permission bits of ``path``; (None, None) when it does not exist."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None, None
    if stat.S_ISDIR(info.st_mode):
        return None, None
    return path.read_bytes(), info.st_mode & 0o7777


class CheckpointingFiles(FileAccess):
    """A FileAccess that keeps each file's previous bytes once per run before a change."""

    def __init__(self, inner: FileAccess, store: CheckpointStore, run_id: str) -> None:
        super().__init__(inner.root, max_file_size=inner.max_file_size)
        self.inner = inner
        self.store = store
        self.run_id = run_id
        self._kept: set[str] = set()
        # The read record is the inner one's: staleness checks must see every read.
        self._seen = inner._seen

    def __getattr__(self, name: str) -> Any:  # confirmer, buffers... of the inner one
        return getattr(self.inner, name)

    async def read_text(self, path: str) -> TextFile:
        return await self.inner.read_text(path)

    async def exists(self, path: str) -> bool:
        return await self.inner.exists(path)

    async def is_dir(self, path: str) -> bool:
        return await self.inner.is_dir(path)

    async def list_dir(self, path: str) -> list[str]:
        return await self.inner.list_dir(path)

    async def keep(self, rel: str, base_text: str | None = None) -> None:
        """Keep ``rel``'s current bytes as its state before this run (first call only)."""
        if rel in self._kept:
            return
        self._kept.add(rel)
        await asyncio.to_thread(self._keep_sync, rel, base_text)

    def _keep_sync(self, rel: str, base_text: str | None) -> None:
        data, mode = read_state(self.root / rel)
        if data is not None and base_text is not None:
            try:
                on_disk = data.decode("utf-8")
            except UnicodeDecodeError:
                on_disk = None
            if on_disk != base_text:
                # The editor's buffer is what the change replaces; keep that.
                data = base_text.encode("utf-8")
        if data is None and base_text is not None:
            data = base_text.encode("utf-8")
        before = FileState(mode=mode)
        if data is not None:
            digest = self.store.put(data)
            if digest is None:
                before.missing = "the checkpoint store is full"
                before.sha = sha256(data)
            else:
                before.sha = digest
        self.store.append(RecordLine(run=self.run_id, at=time.time(), path=rel, before=before))

    def left(self, rel: str, text: str | None) -> None:
        after = FileState(sha=None if text is None else sha256(text.encode("utf-8")))
        self.store.append(RecordLine(run=self.run_id, at=time.time(), path=rel, after=after))

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        for change in changes:
            await self.keep(self.rel(change.path), change.base_text)
        outcome = await self.inner.apply(changes, confirm=confirm)
        if outcome.status in ("applied", "partial"):
            for change in changes:
                rel = self.rel(change.path)
                if outcome.status == "partial":
                    # Only some hunks landed: what is there now is what the run left.
                    data, _ = await asyncio.to_thread(read_state, self.root / rel)
                    after = FileState(sha=None if data is None else sha256(data))
                    self.store.append(
                        RecordLine(run=self.run_id, at=time.time(), path=rel, after=after)
                    )
                else:
                    await asyncio.to_thread(self.left, rel, change.new_text)
        return outcome

    async def observed(
        self, rel: str, previous: bytes | None, mode: int | None, *, unknown: bool = False
    ) -> None:
        """A command changed ``rel``; ``previous`` is what it held before (None: it did
        not exist, or with ``unknown`` its bytes were not known before the command)."""
        if rel in self._kept:
            # Kept already: only what the run left there changes.
            data, _ = await asyncio.to_thread(read_state, self.root / rel)
            after = FileState(sha=None if data is None else sha256(data))
            await asyncio.to_thread(
                self.store.append, RecordLine(run=self.run_id, path=rel, after=after)
            )
            return
        self._kept.add(rel)

        def write() -> None:
            before = FileState(mode=mode)
            if unknown:
                before.sha = "unknown"
                before.missing = "a command changed it and its previous content was not known"
            elif previous is not None:
                before.sha = self.store.put(previous) or sha256(previous)
            self.store.append(RecordLine(run=self.run_id, at=time.time(), path=rel, before=before))
            data, _ = read_state(self.root / rel)
            after = FileState(sha=None if data is None else sha256(data))
            self.store.append(RecordLine(run=self.run_id, at=time.time(), path=rel, after=after))

        await asyncio.to_thread(write)


# -- restore ---------------------------------------------------------------------


class RestoreResult(BaseModel):
    run_id: str
    restore_run_id: str | None = None
    status: str  # "applied", "rejected", "nothing", "failed", "stale"
    message: str = ""
    restored: list[str] = []
    conflicts: list[str] = []
    unrestorable: list[dict[str, str]] = []


@dataclass
class RestorePlan:
    changes: list[FileChange]
    modes: dict[str, int]
    conflicts: list[str]
    unrestorable: list[dict[str, str]]
    # Binary files go back on disk directly: a text edit cannot carry their bytes.
    raw: dict[str, bytes]


async def plan_restore(
    store: CheckpointStore, run_id: str, files: FileAccess, *, force: bool = False
) -> RestorePlan:
    runs = store.runs()
    index = next((i for i, r in enumerate(runs) if r.run_id == run_id), None)
    if index is None:
        known = ", ".join(r.run_id for r in runs) or "none"
        raise ValidationError(f"no checkpoint for run {run_id!r} (runs with checkpoints: {known})")
    undone = runs[index:]
    target: dict[str, FileState] = {}
    expected: dict[str, FileState | None] = {}
    for run in undone:
        for path, before in run.before.items():
            target.setdefault(path, before)
        for path in run.before:
            expected[path] = run.after.get(path, expected.get(path))
    plan = RestorePlan([], {}, [], [], {})
    for path, before in sorted(target.items()):
        current = await _current(files, path)
        left = expected.get(path)
        current_sha = None if current is None else sha256(current)
        if left is not None and current_sha != left.sha and not force:
            plan.conflicts.append(path)
            continue
        if before.sha == current_sha:
            if before.mode is not None and before.mode != await _current_mode(files, path):
                plan.modes[path] = before.mode
            continue
        if before.sha is None:
            if current is not None:
                plan.changes.append(FileChange(path, None, _text(current)))
            continue
        data = store.get(before.sha)
        if data is None:
            reason = before.missing or "its saved copy is missing from the checkpoint store"
            plan.unrestorable.append({"path": path, "reason": reason})
            continue
        if is_binary(data) or _text(data) is None:
            plan.raw[path] = data
        else:
            base = None if current is None else _text(current)
            plan.changes.append(FileChange(path, _text(data), base))
        if before.mode is not None:
            plan.modes[path] = before.mode
    return plan


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def _current_mode(files: FileAccess, path: str) -> int | None:
    _, mode = await asyncio.to_thread(read_state, files.resolve(path))
    return mode


async def _current(files: FileAccess, path: str) -> bytes | None:
    """What ``path`` holds now: the editor's buffer when open, else the disk."""
    if not await files.exists(path):
        return None
    try:
        text = await files.read_text(path)
    except ValidationError:
        data, _ = await asyncio.to_thread(read_state, files.resolve(path))
        return data
    if text.lossy:
        data, _ = await asyncio.to_thread(read_state, files.resolve(path))
        return data
    return text.text.encode("utf-8")


async def restore(
    store: CheckpointStore,
    run_id: str,
    files: FileAccess,
    *,
    force: bool = False,
    confirm: bool = True,
    confirm_bytes: BytesConfirmer | None = None,
) -> RestoreResult:
    """Put the workspace back before ``run_id``; the restore is itself a recorded run, and
    an entry of the session, so a later run's model is told the files went back.

    Files that are not text cannot ride in the confirmed edit: with ``confirm`` their bytes
    are written back only when ``confirm_bytes`` (given their paths) says yes; without one,
    or on a no, they are listed as not restored."""
    plan = await plan_restore(store, run_id, files, force=force)
    if plan.raw and confirm:
        if confirm_bytes is None:
            reason = "not text, and nothing here can confirm writing its bytes back"
        elif await confirm_bytes(sorted(plan.raw)):
            reason = ""
        else:
            reason = "not text; you declined writing its bytes back"
        if reason:
            plan.unrestorable.extend({"path": path, "reason": reason} for path in sorted(plan.raw))
            for path in plan.raw:
                plan.modes.pop(path, None)
            plan.raw = {}
    result = RestoreResult(
        run_id=run_id, status="nothing", conflicts=plan.conflicts, unrestorable=plan.unrestorable
    )
    if not plan.changes and not plan.raw and not plan.modes:
        result.message = "nothing to restore"
        return result
    restore_id = "restore-" + uuid.uuid4().hex[:8]
    store.append(RecordLine(run=restore_id, kind="restore", at=time.time(), restores=run_id))
    recording = CheckpointingFiles(files, store, restore_id)
    for path in [*plan.raw, *plan.modes]:
        await recording.keep(path)
    if plan.changes:
        outcome = await recording.apply(plan.changes, confirm=confirm)
        if outcome.status == "partial":
            # Some of it landed: that much is a restore the session must know of.
            result.restore_run_id = restore_id
            result.restored = sorted(outcome.kept_hunks or outcome.paths)
        if outcome.status != "applied":
            result.status, result.message = outcome.status, outcome.message
            await _record_in_session(store, result)
            return result
    for path, data in plan.raw.items():
        await asyncio.to_thread(_write_bytes, files.resolve(path, for_write=True), data)
        after = FileState(sha=sha256(data))
        store.append(RecordLine(run=restore_id, at=time.time(), path=path, after=after))
    for path, mode in plan.modes.items():
        target = files.resolve(path)
        await asyncio.to_thread(_chmod, target, mode)
    result.restore_run_id = restore_id
    result.status = "applied"
    result.restored = sorted({c.path for c in plan.changes} | set(plan.raw) | set(plan.modes))
    await _record_in_session(store, result)
    return result


async def _record_in_session(store: CheckpointStore, result: RestoreResult) -> None:
    """A restore that changed files becomes an entry of the session that ran them."""
    if result.restore_run_id is None:
        return
    # The entry keeps the outcome as the user was told it, field for field.
    outcome = result.model_dump(include={"status", "restored", "conflicts", "unrestorable"})
    entry = RestoreEntry(run_id=result.restore_run_id, restores=result.run_id, **outcome)
    try:
        session = await asyncio.to_thread(store.session)
        await session.append(entry)
    except SessionWriteError as exc:
        # The files went back already: say so, and that the session does not know it.
        result.message = f"{result.message} (not recorded in the session: {exc})".strip()


def _write_bytes(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def _chmod(target: Path, mode: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.chmod(target, mode)


# -- what commands changed ---------------------------------------------------------

#: How many bytes of file content a pre-command snapshot reads when no index holds them.
SNAPSHOT_BUDGET = 32 * 1024 * 1024


class CheckpointingProbe:
    """Wraps the changes probe of the exec tools: files a command changed are kept too.

    A command writes behind the FileAccess, so the previous bytes must be known before
    it starts: the live index's held text when there is one, else a snapshot of the
    workspace's files (up to ``SNAPSHOT_BUDGET`` bytes). A changed file whose previous
    bytes were not known is recorded as such and reported as not restorable.
    """

    def __init__(
        self, inner: Any, files: CheckpointingFiles, indexer: IndexerConfig, index: Any = None
    ) -> None:
        self.inner = inner
        self.files = files
        self.indexer = indexer
        self.index = index

    async def snapshot(self) -> Any:
        inner = await self.inner.snapshot()
        held, existing = await self._known()
        modes = await asyncio.to_thread(self._modes, existing if existing is not None else held)
        return inner, (held, existing, modes)

    def _modes(self, paths: Any) -> dict[str, int]:
        """Permission bits of ``paths``: a ``chmod`` changes neither bytes nor mtime, so
        the stamps of the changes probe cannot see it; comparing modes does."""
        modes: dict[str, int] = {}
        for rel in paths:
            if self._ignored(rel):
                continue
            try:
                info = os.stat(self.files.root / rel)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                modes[rel] = info.st_mode & 0o7777
        return modes

    async def _known(self) -> tuple[dict[str, bytes], set[str] | None]:
        sources = getattr(self.index, "sources", None)
        if callable(sources) and getattr(self.index, "holds_text", False):
            paths, datas = sources()
            held = {p: d for p, d in zip(paths, datas, strict=True) if d is not None}
            # Files the index does not hold as text (binary, too large): a property.
            other = getattr(self.index, "other_paths", None)
            existing = set(paths) | set((other() if callable(other) else other) or ())
            # The index holds text only: binary files are read now, within the budget.
            rest = sorted(existing - held.keys())
            held.update(await asyncio.to_thread(self._read_all, rest))
            return held, existing
        from agentls.agent.child_process import FileSnapshotProbe

        stamps: dict[str, Any] = await FileSnapshotProbe(self.files.root, self.indexer).snapshot()
        return await asyncio.to_thread(self._read_all, stamps), set(stamps)

    def _ignored(self, rel: str) -> bool:
        """.git and the session files themselves are never part of a checkpoint."""
        if rel.split("/", 1)[0] == ".git":
            return True
        sessions = Path(os.path.realpath(self.files.store.dir.parent))
        target = Path(os.path.realpath(self.files.root / rel))
        return sessions in target.parents

    def _read_all(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The bytes of ``paths`` (regular files), up to ``SNAPSHOT_BUDGET`` in all."""
        held: dict[str, bytes] = {}
        budget = SNAPSHOT_BUDGET
        for rel in paths:
            if self._ignored(rel):
                continue
            target = self.files.root / rel
            try:
                info = target.stat()
                if not stat.S_ISREG(info.st_mode) or info.st_size > budget:
                    continue
                held[rel] = target.read_bytes()
            except OSError:
                continue
            budget -= info.st_size
        return held

    async def changed_since(self, snapshot: Any) -> list[str]:
        inner, (held, existing, modes) = snapshot
        changed: list[str] = await self.inner.changed_since(inner)
        now = await asyncio.to_thread(self._modes, modes)
        chmodded = [p for p, mode in modes.items() if p in now and now[p] != mode]
        for rel in sorted(set(changed) | set(chmodded)):
            if self._ignored(rel):
                continue
            previous = held.get(rel)
            if previous is None and rel not in changed:
                # Only its mode changed: its bytes now are its bytes before.
                previous, _ = await asyncio.to_thread(read_state, self.files.root / rel)
            if previous is None and existing is not None and rel in existing:
                await self.files.observed(rel, None, modes.get(rel), unknown=True)
            else:
                await self.files.observed(rel, previous, modes.get(rel))
        return sorted(set(changed) | set(chmodded))


# -- across sessions ---------------------------------------------------------------


def session_stores(sessions: SessionStore) -> list[tuple[str, CheckpointStore]]:
    """The checkpoint stores of every session, most recently used first."""
    try:
        dirs = [d for d in sessions.root.glob("*.checkpoints") if d.is_dir()]
    except OSError:
        return []

    def used(directory: Path) -> float:
        try:
            return (directory / "record.jsonl").stat().st_mtime
        except OSError:
            return 0.0

    # Pruned with the session: a session file removed takes its checkpoints along.
    for directory in [d for d in dirs if not d.with_suffix(".jsonl").exists()]:
        shutil.rmtree(directory, ignore_errors=True)
        dirs.remove(directory)
    dirs.sort(key=used, reverse=True)
    return [(d.name.removesuffix(".checkpoints"), CheckpointStore(d)) for d in dirs]


def list_checkpoints(sessions: SessionStore, session_id: str | None = None) -> list[dict[str, Any]]:
    """Runs with the files each changed, newest first (``agent/checkpoints``)."""
    if session_id is not None:
        stores = [(session_id, CheckpointStore.for_session(sessions, session_id))]
    else:
        stores = session_stores(sessions)
    runs: list[dict[str, Any]] = []
    for sid, store in stores:
        for run in store.runs():
            runs.append({**run.to_json(), "sessionId": sid})
    return sorted(runs, key=lambda r: float(r["at"]), reverse=True)


def store_of_run(sessions: SessionStore, run_id: str) -> CheckpointStore:
    """The checkpoint store that recorded ``run_id``."""
    for _, store in session_stores(sessions):
        if any(r.run_id == run_id for r in store.runs()):
            return store
    raise ValidationError(
        f"no checkpoint for run {run_id!r}; `agentls checkpoints` lists the runs that have one"
    )
