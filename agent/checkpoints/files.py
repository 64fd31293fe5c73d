"""The FileAccess every tool write of a run passes through, keeping what it replaces.

``CheckpointingFiles`` wraps any ``FileAccess`` (disk or the editor's buffers): before
a run changes a file the first time, the file's previous bytes and mode go into the
session's ``CheckpointStore``, and after each change the record says what the run left
there. Files a command changed behind it are reported through ``observed``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from pathlib import Path

from agentls.agent.checkpoints.store import CheckpointStore, FileState, RecordLine, sha256
from agentls.agent.workspace import EditOutcome, FileAccess, FileChange, WrappedFiles
from agentls.regular_files import NotRegularFileError, open_regular, read_fd


def read_state(path: Path) -> tuple[bytes | None, int | None]:
    """Bytes and permission bits of ``path``; (None, None) when it does not exist or is
    no regular file (a FIFO a command made is never opened for reading: it would block)."""
    try:
        fd, info = open_regular(path)
    except (FileNotFoundError, NotRegularFileError):
        return None, None
    try:
        return read_fd(fd), info.st_mode & 0o7777
    finally:
        os.close(fd)


class CheckpointingFiles(WrappedFiles):
    """A FileAccess that keeps each file's previous bytes once per run before a change."""

    def __init__(self, inner: FileAccess, store: CheckpointStore, run_id: str) -> None:
        super().__init__(inner)
        self.store = store
        self.run_id = run_id
        self._kept: set[str] = set()

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
        # The text itself is kept too: a restore tells from it the user's undo of some of
        # the run's changes (put back the rest) from changes of their own (left alone).
        data = None if text is None else text.encode("utf-8")
        sha = None if data is None else (self.store.put(data) or sha256(data))
        after = FileState(sha=sha)
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
