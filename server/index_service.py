"""The live repository index of the server: built in the background after
``initialized`` (with ``$/progress`` "Indexing…"), then kept current by a watcher so
a file created between two runs is in the next run's system prompt.

The index is optional: while it builds, or when ``indexer.enabled`` is off, or if the
build fails, runs get ``None`` and work without a tree.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from agentls.server.progress import client_supports_progress

if TYPE_CHECKING:  # imported when indexing starts, after `initialized`
    from agentls.agent.config.models import AppConfig
    from agentls.indexer.builder import RepoIndexer
    from agentls.indexer.index import RepoIndex
    from agentls.indexer.settings import IndexSettings
    from agentls.indexer.symbol_source import SymbolSource
    from agentls.indexer.symbols_client import SymbolProcess
    from agentls.indexer.watcher import ChangeBatch, IndexWatcher

log = logging.getLogger(__name__)

PROGRESS_TOKEN = "agentls/index"


class WatcherChangesProbe:
    """What a shell command changed, as the live index's watcher saw it.

    ``snapshot`` lets the watcher catch up, then starts collecting its change
    batches; ``changed_since`` waits until everything written before it is indexed
    and returns the paths seen in between (the exec tools list them for the model).
    """

    def __init__(self, watcher: IndexWatcher) -> None:
        self._watcher = watcher

    async def snapshot(self) -> tuple[set[str], Callable[[], None]]:
        await self._watcher.settle()
        seen: set[str] = set()

        def collect(batch: ChangeBatch) -> None:
            seen.update(batch.paths)

        return seen, self._watcher.subscribe(collect)

    async def changed_since(self, snapshot: tuple[set[str], Callable[[], None]]) -> list[str]:
        seen, unsubscribe = snapshot
        try:
            await self._watcher.settle()
        finally:
            unsubscribe()
        return sorted(seen)


class IndexService:
    """Owns a folder's RepoIndex and its watcher; ``index`` is what its runs get."""

    def __init__(
        self,
        ls: LanguageServer,
        *,
        spawn: Callable[..., asyncio.Task[Any]],
        progress_token: str = PROGRESS_TOKEN,
        title: str = "Indexing…",
    ) -> None:
        self._ls = ls
        #: Each folder's index reports its progress on a token of its own.
        self._token = progress_token
        self._title = title
        self._spawn = spawn
        self.index: RepoIndex | None = None
        self.indexer: RepoIndexer | None = None
        self.watcher: IndexWatcher | None = None
        #: The index's symbols, kept by a child process (they are the largest part of
        #: a server's memory after the text, and are read a few times a run).
        self.symbols: SymbolProcess | None = None
        self._subscribers: list[Callable[[ChangeBatch], Any]] = []
        self.ready = asyncio.Event()
        self._key: tuple[Path, IndexSettings] | None = None

    def start(self, config: AppConfig) -> None:
        """(Re)build for ``config`` in the background; a no-op if nothing relevant changed."""
        if not config.indexer.enabled:
            self.stop()
            self.index = None
            self._key = None
            self.ready.set()
            return
        from agentls.agent.indexing import index_settings

        key = (config.workspace.root, index_settings(config.indexer))
        if key == self._key:
            return
        self._key = key
        self.stop()
        self._spawn(self._build_and_watch(*key), name="index")

    def symbol_source(self) -> SymbolSource:
        """What a run asks about symbols. While the index is rebuilt there is no symbol
        process: "not ready" then, rather than parsing in this process."""
        from agentls.indexer.symbol_source import no_symbols

        return self.symbols or no_symbols

    def changes_probe(self) -> WatcherChangesProbe | None:
        """A probe over the running watcher, or None (the tools then snapshot files)."""
        watcher = self.watcher
        return WatcherChangesProbe(watcher) if watcher is not None and watcher.running else None

    def subscribe(self, callback: Callable[[ChangeBatch], Any]) -> None:
        """Call ``callback(batch)`` after every change the watcher applies (any index)."""
        self._subscribers.append(callback)
        if self.watcher is not None:
            self.watcher.subscribe(callback)

    def stop(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            self._spawn(watcher.stop(), name="index-watcher-stop")
        symbols, self.symbols = self.symbols, None
        if symbols is not None:
            self._spawn(symbols.close(), name="symbols-stop")

    async def _build_and_watch(self, root: Path, settings: IndexSettings) -> None:
        from agentls.agent.config.state_paths import cache_path
        from agentls.agent.indexing import SYMBOLS_CACHE_FILE
        from agentls.indexer.builder import RepoIndexer
        from agentls.indexer.symbols_client import SymbolProcess
        from agentls.indexer.watcher import IndexWatcher

        token = await self._progress_begin()
        indexer = RepoIndexer(root, settings)
        try:
            index = await indexer.abuild()
        except Exception:
            self._progress_end(token, "Indexing failed")
            raise
        self.indexer, self.index = indexer, index
        # The index is tens of thousands of long-lived objects: keep them out of the
        # cyclic collector's full passes, which stop every thread (see lifecycle).
        gc.freeze()
        self.ready.set()
        self._progress_end(token, f"{index.total_files} files")
        log.info("indexed %d files in %.0f ms", index.total_files, index.build_time_ms or 0)
        # Symbols fill in in their own process: the index is ready without them.
        symbols = self.symbols = SymbolProcess(index, cache_path(root, SYMBOLS_CACHE_FILE))
        symbols.changed()
        watcher = IndexWatcher(indexer, index)
        watcher.subscribe(symbols.changed)
        for callback in self._subscribers:
            watcher.subscribe(callback)
        self.watcher = watcher
        watcher.start()

    async def _progress_begin(self) -> str | None:
        if not client_supports_progress(self._ls.client_capabilities):
            return None
        progress = self._ls.work_done_progress
        try:
            if self._token not in progress.tokens:
                await progress.create_async(self._token)
        except Exception as exc:
            log.debug("no index progress: %s", exc)
            return None
        progress.begin(
            self._token, types.WorkDoneProgressBegin(title=self._title, cancellable=False)
        )
        return self._token

    def _progress_end(self, token: str | None, message: str) -> None:
        if token is None:
            return
        progress = self._ls.work_done_progress
        progress.end(token, types.WorkDoneProgressEnd(message=message))
        progress.tokens.pop(token, None)
