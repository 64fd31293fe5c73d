"""The workspace's files as an ACP client offers them.

A client that declares ``fs.readTextFile`` answers with the editor's text, unsaved
changes included: the agent reads that, and checks an edit against it before writing.
One that declares ``fs.writeTextFile`` writes through the editor (its buffers and undo
stay in step); otherwise the change goes to disk atomically, as in the headless CLI.
Paths are confined to the workspace exactly as on disk (symlinks resolved) before the
client is ever asked. ACP has no delete: a deletion is done on disk.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from agentls.acp_agent.protocol.client import Client
from agentls.agent.errors import InvalidTargetError
from agentls.agent.workspace import DiskFileAccess, EditOutcome, FileChange, TextFile, relpath
from agentls.regular_files import kind_of

log = logging.getLogger(__name__)


def _special_file(target: Path) -> str | None:
    """What ``target`` is when it exists and is not a regular file (a FIFO, a socket, a
    device), else None: the editor is not asked to read such a thing."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else kind_of(mode)


class AcpFileAccess(DiskFileAccess):
    def __init__(
        self,
        root: Path,
        client: Client,
        session_id: str,
        *,
        reads: bool,
        writes: bool,
        on_applied: Callable[[Sequence[FileChange]], None],
        max_file_size: int = 1_000_000,
    ) -> None:
        super().__init__(root, max_file_size=max_file_size)
        self.client = client
        self.session_id = session_id
        self.reads = reads
        self.writes = writes
        self.on_applied = on_applied

    async def read_text(self, path: str) -> TextFile:
        target = self.resolve(path)
        if not self.reads:
            return await super().read_text(path)
        special = await asyncio.to_thread(_special_file, target)
        if special:
            # The editor would open it as agentls would have: a FIFO blocks its read forever.
            raise InvalidTargetError(
                f"{path} is {special}, not a regular file: only regular files are read"
            )
        try:
            answer = await self.client.read_text_file(session_id=self.session_id, path=str(target))
        except Exception as exc:
            # The editor may not know the file (not open, not on disk): the disk says why.
            log.debug("fs/read_text_file %s failed: %s", target, exc)
            return await super().read_text(path)
        return TextFile(relpath(self.root, target), answer.content)

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        if self.reads or self.writes:
            outcome = await self._apply_through_client(changes, confirm)
        else:
            outcome = await super().apply(changes, confirm=confirm)
        if outcome.status == "applied":
            self.on_applied(changes)
        return outcome

    async def _current(self, change: FileChange, target: Path) -> str | None:
        """The text the change must still find (the editor's when it offers it), or None."""
        if not await asyncio.to_thread(target.exists):
            return None
        try:
            return (await self.read_text(change.path)).text
        except InvalidTargetError:
            return None

    async def _apply_through_client(
        self, changes: Sequence[FileChange], confirm: bool
    ) -> EditOutcome:
        if not changes:
            return EditOutcome("applied", "nothing to change")
        targets = [self.resolve(c.path, for_write=True) for c in changes]
        paths = [relpath(self.root, t) for t in targets]
        async with self._lock:
            stale = [
                change.path
                for change, target in zip(changes, targets, strict=True)
                if await self._current(change, target) != change.base_text
            ]
            refused = await self.refused_or_stale(changes, paths, stale, confirm=confirm)
            if refused is not None:
                return refused
            done: list[str] = []
            for change, target, rel in zip(changes, targets, paths, strict=True):
                try:
                    await self._write(change, target)
                except Exception as exc:
                    written = f" ({', '.join(done)} already written)" if done else ""
                    return EditOutcome("failed", f"writing {rel} failed: {exc}{written}", paths)
                done.append(rel)
        for change in changes:
            if change.new_text is not None:
                self.remember_read(change.path, change.new_text)
        return EditOutcome("applied", "", paths)

    async def _write(self, change: FileChange, target: Path) -> None:
        if change.new_text is None:
            await asyncio.to_thread(target.unlink, missing_ok=True)
        elif self.writes:
            await asyncio.to_thread(target.parent.mkdir, parents=True, exist_ok=True)
            await self.client.write_text_file(
                session_id=self.session_id, path=str(target), content=change.new_text
            )
        else:
            await asyncio.to_thread(self._commit, [change], [target])
