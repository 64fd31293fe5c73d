"""What the agent asks of a workspace's symbols, wherever they are kept.

A short-lived front end (the CLI, ACP) keeps them in its own process (``LocalSymbols``);
the language server keeps them in a child process (``SymbolProcess``), so that the
process the editor talks to stays small. Both answer the same awaitable questions.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol

from agentls.indexer.index import RepoIndex
from agentls.indexer.repomap import MapFocus, SymbolHit, SymbolIndex, render_map


class SymbolsUnavailable(RuntimeError):
    """There is no answer: no symbols are kept for this workspace, or the process that
    keeps them could not start or died (the message says which)."""


class SymbolSource(Protocol):
    async def wait_filled(self, at_most: float) -> bool:
        """Whether the first fill is done, waiting up to ``at_most`` seconds for it."""
        ...

    async def repo_map(self, focus: MapFocus, max_tokens: int) -> str:
        """The map ranked for ``focus``, at most ``max_tokens`` long."""
        ...

    async def find_definitions(self, name: str, kind: str | None = None) -> list[SymbolHit]: ...

    async def find_references(self, name: str) -> list[SymbolHit]: ...

    async def search_definitions(self, query: str, limit: int) -> list[SymbolHit]:
        """The ``limit`` definitions whose names match ``query`` best (fuzzy), for a picker."""
        ...


class NoSymbols:
    """A workspace without an index: no map, and every lookup says why."""

    async def wait_filled(self, at_most: float) -> bool:
        return True

    async def repo_map(self, focus: MapFocus, max_tokens: int) -> str:
        return ""

    async def find_definitions(self, name: str, kind: str | None = None) -> list[SymbolHit]:
        raise SymbolsUnavailable(NO_INDEX)

    async def find_references(self, name: str) -> list[SymbolHit]:
        raise SymbolsUnavailable(NO_INDEX)

    async def search_definitions(self, query: str, limit: int) -> list[SymbolHit]:
        raise SymbolsUnavailable(NO_INDEX)


NO_INDEX = "no symbol index for this workspace (indexing disabled or not ready)"
no_symbols = NoSymbols()


class LocalSymbols:
    """The symbols of ``index`` kept in this process; the work runs on threads.

    It makes and owns its SymbolIndex, which starts filling at once: the symbols live as
    long as this source, and whoever keeps the source between runs keeps them (as the
    server keeps its ``SymbolProcess``). The index itself knows nothing of symbols: it is
    the file index every front end builds, and the server's must never load a parser.
    """

    def __init__(self, index: RepoIndex, cache_path: Path | None = None) -> None:
        self._symbols = SymbolIndex(index, cache_path)
        self._symbols.start()

    async def wait_filled(self, at_most: float) -> bool:
        if self._symbols.filled:
            return True
        return await asyncio.to_thread(self._symbols.wait_filled, at_most)

    async def repo_map(self, focus: MapFocus, max_tokens: int) -> str:
        # On the caller's loop: catching up reads the index the watcher mutates there.
        files = self._symbols.files()
        return await asyncio.to_thread(render_map, files, focus, max_tokens)

    async def find_definitions(self, name: str, kind: str | None = None) -> list[SymbolHit]:
        return self._symbols.find_definitions(name, kind)

    async def find_references(self, name: str) -> list[SymbolHit]:
        return self._symbols.find_references(name)

    async def search_definitions(self, query: str, limit: int) -> list[SymbolHit]:
        return await asyncio.to_thread(self._symbols.search_definitions, query, limit)
