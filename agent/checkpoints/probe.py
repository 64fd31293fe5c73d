"""Checkpoints of the files a command changed behind the FileAccess.

A command writes straight to disk, so ``CheckpointingProbe`` learns the previous bytes
before it starts and hands what changed to ``CheckpointingFiles.observed``.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentls.agent.checkpoints.files import CheckpointingFiles, read_state
from agentls.agent.config.models import IndexerConfig
from agentls.regular_files import read_regular

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
        from agentls.agent.exec.process import FileSnapshotProbe

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
                # Read without blocking: a FIFO swapped in since the stat is refused.
                data = read_regular(os.path.realpath(target), budget + 1)
            except OSError:
                continue
            if len(data) > budget:
                continue
            held[rel] = data
            budget -= len(data)
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
