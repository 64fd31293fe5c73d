"""``SymbolProcess``: a RepoIndex's symbols, kept and queried in a child process.

The child (``agentls.indexer.symbols_process``) is driven through ``agentls.child_rpc``:
started on first use, started again on the next question after it died. It follows the
index: before every question, the files that changed since the last one (or, for a new
child or a change log that no longer reaches back, every file) go down the pipe first,
on the same child, so an answer always reflects the index as the caller sees it.
``changed()`` sends them as soon as the watcher applied them, so the child parses while
nobody waits. A question that could not be written to a child (its pipe broke before the
operating system had told us it was gone) goes to a new child; one it was already
answering fails with ``SymbolsUnavailable``, which the map and the tools report as "no
symbols".

With ``idle_seconds``, a child that has filled (it says so: ``{"kind": "ready"}``) and was
asked nothing for that long is stopped: its symbols are in its disk cache, which the next
child reads back (parsing only the files that changed meanwhile). A stopped child is not
woken by the index's changes, only by a question or ``wake()``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentls.child_rpc import WorkerExited, WorkerProcess, WorkerRPC
from agentls.child_wire import encode
from agentls.children import module_command
from agentls.indexer.index import FileInfo, RepoIndex
from agentls.indexer.repomap import MAX_PARSE_BYTES, CopiedTree, MapFocus, SymbolHit
from agentls.indexer.symbol_source import SymbolsUnavailable
from agentls.indexer.symbols import grammar_name

log = logging.getLogger(__name__)

#: Past this many files a message is encoded on a thread, off the caller's loop.
_ENCODE_ON_THREAD = 2_000


class SymbolProcess:
    """The symbols of ``index`` in a child process; one per index, closed with it."""

    def __init__(
        self,
        index: RepoIndex,
        cache_path: Path | None = None,
        *,
        copied_from: CopiedTree | None = None,
        command: Sequence[str] = (),
        idle_seconds: Callable[[], float] | None = None,
    ) -> None:
        """``command`` starts the child (by default ``python -P -m`` the child's module);
        ``copied_from``: the tree ``index``'s was copied from, whose symbols it reuses
        for files unchanged there (see ``CopiedTree``); ``idle_seconds`` (read each time
        the idle clock starts; 0 or None: never) stops a filled child nobody asks."""
        self.index = index
        self.cache_path = cache_path
        self.copied_from = copied_from
        self._child = WorkerRPC(
            list(command) or module_command("agentls.indexer.symbols_process"),
            name="the symbol process",
            error=SymbolsUnavailable,
            # Ready once filled: the idle clock never stops a child before its symbols
            # are in its cache.
            announces_ready=True,
            on_start=self._forget_seen,
            idle_seconds=idle_seconds,
        )
        #: The index generation the child has seen; None: it must get every file.
        self._seen: int | None = None
        self._started = False
        self._catch_up: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._child.pid

    @property
    def running(self) -> bool:
        """Whether a child is up (not stopped for being idle, not yet started, not dead)."""
        return self._child.running

    # -- questions -------------------------------------------------------------------
    async def wait_filled(self, at_most: float) -> bool:
        return bool(await self._ask("filled", {"timeout": at_most}))

    async def repo_map(self, focus: MapFocus, max_tokens: int) -> str:
        question = {
            "prompt": focus.prompt,
            "open_paths": list(focus.open_paths),
            "recent_paths": list(focus.recent_paths),
            "max_tokens": max_tokens,
        }
        return str(await self._ask("map", question))

    async def find_definitions(self, name: str, kind: str | None = None) -> list[SymbolHit]:
        return _hits(await self._ask("definitions", {"name": name, "kind": kind}))

    async def find_references(self, name: str) -> list[SymbolHit]:
        return _hits(await self._ask("references", {"name": name}))

    async def search_definitions(self, query: str, limit: int) -> list[SymbolHit]:
        return _hits(await self._ask("search", {"query": query, "limit": limit}))

    # -- following the index -----------------------------------------------------------
    def changed(self, *_: object) -> None:
        """The index changed: send what did, soon (a watcher subscriber). The first call
        starts the child; a child stopped since (idle) hears of it when next woken."""
        if self._started and not self._child.running:
            return
        self.wake()

    def wake(self) -> None:
        """Start the child if it is not running, and send it what changed (a run is coming:
        the child reads its cache back meanwhile)."""
        if self._child.closed or (self._catch_up is not None and not self._catch_up.done()):
            return
        self._catch_up = asyncio.get_running_loop().create_task(self._send_changes())

    async def _send_changes(self) -> None:
        try:
            await self._child.send(self._catch_up_with_index)
        except SymbolsUnavailable as exc:
            log.warning("symbols: %s", exc)
        except Exception:  # a background task: say it, the next question tries again
            log.warning("symbols: sending the index's changes failed", exc_info=True)

    async def _catch_up_with_index(self, child: WorkerProcess) -> None:
        # Batches applied while the last one was sent go too, without waiting for the
        # next batch or question.
        while self._seen != self.index.generation:
            await self._sync(child)

    async def close(self) -> None:
        await self._child.close()

    # -- the pipe ----------------------------------------------------------------------
    async def _ask(self, op: str, question: dict[str, Any]) -> Any:
        try:
            reply = await self._child.ask(op, question, before=self._sync)
        except WorkerExited:
            raise SymbolsUnavailable("the symbol process exited") from None
        if "error" in reply:
            raise SymbolsUnavailable(str(reply["error"]))
        return reply.get("result")

    def _forget_seen(self) -> None:
        self._seen = None  # a new child knows no file yet
        self._started = True

    async def _sync(self, child: WorkerProcess) -> None:
        """Send ``child`` what changed in the index since it last heard. The files are
        listed here, on the loop that mutates the index, so the snapshot is consistent;
        sorting out and encoding tens of thousands of them happens on a thread."""
        index = self.index
        generation = index.generation
        changed = None if self._seen is None else index.changed_since(self._seen)
        if changed == []:
            return
        header: dict[str, Any] = {"op": "files"}
        if changed is None:
            infos = index.files
            cache = str(self.cache_path) if self.cache_path else None
            header |= {"reset": True, "root": str(index.root), "cache": cache}
            if self.copied_from is not None:
                origin = self.copied_from
                header["copied_from"] = {
                    "root": str(origin.root),
                    "cache": str(origin.cache_path),
                }
        else:
            found = {path: index.get(path) for path in changed}
            infos = [info for info in found.values() if info is not None]
            header["removed"] = [path for path, info in found.items() if info is None]
        if len(infos) > _ENCODE_ON_THREAD:
            line = await asyncio.to_thread(_files_message, header, infos)
        else:
            line = _files_message(header, infos)
        await child.write(line)
        self._seen = generation


def _parsed(info: FileInfo) -> bool:
    """A file the child parses (the rest it never needs to hear of)."""
    return info.size <= MAX_PARSE_BYTES and grammar_name(info.language, info.ext) is not None


def _files_message(header: dict[str, Any], infos: list[FileInfo]) -> bytes:
    """``header`` with ``put``, the files of ``infos`` the child parses; a changed file
    it no longer parses (grown too large) goes in ``removed``."""
    put, removed = [], list(header.get("removed", ()))
    for info in infos:
        if _parsed(info):
            put.append([info.path, info.size, info.ext, info.language, info.lines, info.mtime_ns])
        elif not header.get("reset"):
            removed.append(info.path)
    return encode({**header, "put": put, "removed": removed})


def _hits(rows: Any) -> list[SymbolHit]:
    return [SymbolHit(*row) for row in rows]
