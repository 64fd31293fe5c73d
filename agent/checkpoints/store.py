"""The blob store and record of one session's checkpoints.

Before a run changes a file the first time, the file's previous bytes and mode go
into a content-addressed blob store next to the session file
(``<sessions>/<session>.checkpoints/``), and one line in ``record.jsonl`` says which
run touched which path, what it held before and what the run left there. Everything
needed to restore lives on disk, so a restore works after the server was killed.

The record sits in the workspace, where a repository can commit one: only the lines
agentls appended itself (``ledger``) are believed, and nothing is read or written
through a symlink in place of the directory, its record or its blobs.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentls.agent.checkpoints.ledger import Ledger, line_digest
from agentls.agent.errors import AgentError
from agentls.agent.sessions.store import Session, SessionStore
from agentls.regular_files import NotRegularFileError, read_regular

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


class CheckpointLinkError(AgentError):
    """A checkpoint directory, record or blob folder is a symlink: not followed."""


@dataclass
class RecordRead:
    """What a record holds: the runs agentls recorded, and the run ids of lines it did
    not write (a repository shipped them, or another program wrote them)."""

    runs: list[RunCheckpoint]
    foreign: list[str]


class CheckpointStore:
    """Blobs and the record of one session."""

    def __init__(self, directory: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.dir = directory
        self.blobs = directory / "blobs"
        self.record = directory / "record.jsonl"
        self.max_bytes = max_bytes
        self._lock = _locks.setdefault(directory, threading.Lock())
        self.ledger = Ledger(directory)

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

    def _refuse_links(self) -> None:
        """Writes go nowhere a link in the workspace points (a repository can commit
        ``<session>.checkpoints`` as a link to a file of the user's)."""
        for path in (self.dir, self.blobs, self.record):
            if path.is_symlink():
                raise CheckpointLinkError(
                    f"{path} is a symlink: agentls keeps no checkpoint through it; remove it"
                )

    def put(self, data: bytes) -> str | None:
        """Keep ``data``; None when the store is full."""
        self._refuse_links()
        digest = sha256(data)
        target = self.blobs / digest
        if self.get(digest) is not None:
            return digest  # kept already (a blob a repository shipped under it is not)
        if self.used_bytes() + len(data) > self.max_bytes:
            return None
        self.blobs.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{uuid.uuid4().hex}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        return digest

    def get(self, digest: str) -> bytes | None:
        try:
            data = read_regular(self.blobs / digest)
        except OSError:
            return None
        return data if sha256(data) == digest else None

    # -- record ------------------------------------------------------------------
    def append(self, line: RecordLine) -> None:
        text = line.model_dump_json(exclude_none=True)
        with self._lock:
            self._refuse_links()
            self.dir.mkdir(parents=True, exist_ok=True)
            self.ledger.add(text)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(self.record, flags, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(text + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def runs(self) -> list[RunCheckpoint]:
        """Every run agentls recorded, oldest first (a torn last line is skipped)."""
        return self.read().runs

    def read(self) -> RecordRead:
        """The runs of the lines agentls wrote (its ledger vouches for them), oldest
        first, and the run ids of the lines it did not write."""
        runs: dict[str, RunCheckpoint] = {}
        foreign: dict[str, None] = {}
        try:
            if self.dir.is_symlink():
                raise NotRegularFileError(f"{self.dir} is a symbolic link: not followed")
            text = read_regular(self.record).decode("utf-8", errors="replace")
        except OSError:
            return RecordRead([], [])
        ours = self.ledger.digests()
        for raw in text.splitlines():
            try:
                line = RecordLine.model_validate(json.loads(raw))
            except (ValueError, TypeError):
                continue
            if line_digest(raw) not in ours:
                foreign.setdefault(line.run, None)
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
        kept = [r for r in runs.values() if r.before or r.kind == "restore"]
        return RecordRead(kept, [run for run in foreign if run not in runs])
