"""``SymbolProcess``: a RepoIndex's symbols, kept and queried in a child process.

The child (``agentls.indexer.symbols_process``) is started on first use and follows the
index: before every question, the files that changed since the last one (or, after a
restart or a change log that no longer reaches back, every file) go down the pipe
first, so an answer always reflects the index as the caller sees it. ``changed()``
sends them as soon as the watcher applied them, so the child parses while nobody waits.
A child that died is started again on the next question. A question that could not be
written to it (the pipe broke before the operating system had told us it was gone) goes to
the new child; one it was already answering fails with ``SymbolsUnavailable``, which the
map and the tools report as "no symbols".
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentls.children import module_command, running, start_piped
from agentls.indexer.index import FileInfo, RepoIndex
from agentls.indexer.repomap import MAX_PARSE_BYTES, MapFocus, SymbolHit
from agentls.indexer.symbol_source import SymbolsUnavailable
from agentls.indexer.symbols import grammar_name

log = logging.getLogger(__name__)

#: A reply is one line; a common name's references in a large tree run to megabytes.
_MAX_LINE_BYTES = 256 * 1024 * 1024
#: Past this many files a message is encoded on a thread, off the caller's loop.
_ENCODE_ON_THREAD = 2_000


class SymbolProcess:
    """The symbols of ``index`` in a child process; one per index, closed with it."""

    def __init__(
        self,
        index: RepoIndex,
        cache_path: Path | None = None,
        *,
        command: Sequence[str] = (),
    ) -> None:
        """``command`` starts the child (by default ``python -P -m`` the child's module)."""
        self.index = index
        self.cache_path = cache_path
        self._command = list(command) or module_command("agentls.indexer.symbols_process")
        self._ids = itertools.count(1)
        #: The questions the current child was asked and has not answered. Each child
        #: has its own: a dead child's reader fails only the questions it was sent.
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        #: The index generation the child has seen; None: it must get every file.
        self._seen: int | None = None
        self._closed = False
        self._catch_up: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    # -- questions -------------------------------------------------------------------
    async def wait_filled(self, at_most: float) -> bool:
        return bool(await self._ask({"op": "filled", "timeout": at_most}))

    async def repo_map(self, focus: MapFocus, max_tokens: int) -> str:
        return str(
            await self._ask(
                {
                    "op": "map",
                    "prompt": focus.prompt,
                    "open_paths": list(focus.open_paths),
                    "recent_paths": list(focus.recent_paths),
                    "max_tokens": max_tokens,
                }
            )
        )

    async def find_definitions(self, name: str, kind: str | None = None) -> list[SymbolHit]:
        return _hits(await self._ask({"op": "definitions", "name": name, "kind": kind}))

    async def find_references(self, name: str) -> list[SymbolHit]:
        return _hits(await self._ask({"op": "references", "name": name}))

    # -- following the index -----------------------------------------------------------
    def changed(self, *_: object) -> None:
        """The index changed: send what did, soon (a watcher subscriber)."""
        if self._closed or (self._catch_up is not None and not self._catch_up.done()):
            return
        self._catch_up = asyncio.get_running_loop().create_task(self._send_changes())

    async def _send_changes(self) -> None:
        try:
            async with self._lock:
                await self._ensure_started()
                # Batches applied while the last one was sent go too, without waiting
                # for the next batch or question.
                while self._seen != self.index.generation:
                    await self._sync()
        except SymbolsUnavailable as exc:
            log.warning("symbols: %s", exc)
        except Exception:  # a background task: say it, the next question tries again
            log.warning("symbols: sending the index's changes failed", exc_info=True)

    async def close(self) -> None:
        self._closed = True
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 2.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        if self._reader is not None:
            await self._reader

    # -- the pipe ----------------------------------------------------------------------
    async def _ask(self, request: dict[str, Any]) -> Any:
        loop = asyncio.get_running_loop()
        request_id = next(self._ids)
        reply: asyncio.Future[Any] = loop.create_future()
        pending = self._pending
        try:
            async with self._lock:
                for attempt in range(2):
                    try:
                        await self._ensure_started()
                        await self._sync()
                        pending = self._pending
                        pending[request_id] = reply
                        await self._write(_encode({"id": request_id, **request}))
                        break
                    except _Undelivered:
                        # Nothing reached the child: a new one gets the question, once.
                        pending.pop(request_id, None)
                        if attempt:
                            raise
            return await reply
        finally:
            pending.pop(request_id, None)

    async def _ensure_started(self) -> None:
        if self._closed:
            raise SymbolsUnavailable("the symbol process was closed")
        if not running(self._process):
            process = await start_piped(
                self._command, _MAX_LINE_BYTES, name="the symbol process", error=SymbolsUnavailable
            )
            self._process, self._seen = process, None  # a new child knows no file yet
            self._pending = {}
            self._reader = asyncio.get_running_loop().create_task(
                self._read(process, self._pending)
            )
            log.debug("symbol process started (pid %d)", process.pid)

    async def _sync(self) -> None:
        """Send the child what changed in the index since it last heard. The files are
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
        else:
            found = {path: index.get(path) for path in changed}
            infos = [info for info in found.values() if info is not None]
            header["removed"] = [path for path, info in found.items() if info is None]
        if len(infos) > _ENCODE_ON_THREAD:
            line = await asyncio.to_thread(_files_message, header, infos)
        else:
            line = _files_message(header, infos)
        await self._write(line)
        self._seen = generation

    async def _write(self, line: bytes) -> None:
        process = self._process
        if process is None or process.stdin is None:
            raise SymbolsUnavailable("the symbol process is not running")
        try:
            process.stdin.write(line)
            await process.stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            # Its end of the pipe is closed, so it is dead or dying, even when it has not
            # been reaped yet: the next attempt starts a new child rather than waiting.
            if self._process is process:
                self._process = None
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            raise _Undelivered(f"the symbol process stopped reading: {exc}") from None

    async def _read(
        self, process: asyncio.subprocess.Process, pending: dict[int, asyncio.Future[Any]]
    ) -> None:
        assert process.stdout is not None
        try:
            while line := await process.stdout.readline():
                _answer(pending, line)
            # Its stdout closed: the child is exiting (it was closed, or it failed).
            code = await process.wait()
            if not self._closed:
                log.warning("the symbol process exited (code %s); it restarts on demand", code)
        finally:
            # Also when cancelled (the loop shutting down): never wait for the child here,
            # it exits only once this process closes its stdin.
            for future in pending.values():
                if not future.done():
                    future.set_exception(SymbolsUnavailable("the symbol process exited"))
            if self._process is process:
                self._process = None


class _Undelivered(SymbolsUnavailable):
    """A message could not be written: the child never saw it."""


def _answer(pending: dict[int, asyncio.Future[Any]], line: bytes) -> None:
    try:
        reply = json.loads(line)
    except ValueError:
        log.warning("symbols: unreadable reply %.200r", line)
        return
    future = pending.get(reply.get("id"))
    if future is None or future.done():
        return  # its asker gave up (cancelled, timed out)
    if "error" in reply:
        future.set_exception(SymbolsUnavailable(str(reply["error"])))
    else:
        future.set_result(reply.get("result"))


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
    return _encode({**header, "put": put, "removed": removed})


def _encode(message: dict[str, Any]) -> bytes:
    # ASCII: a path that is not UTF-8 travels as its surrogate escapes.
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _hits(rows: Any) -> list[SymbolHit]:
    return [SymbolHit(*row) for row in rows]
