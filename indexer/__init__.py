"""The repository index: file map, held text, live updates and search.

Knows nothing of the agent or LSP: front ends pass plain ``IndexSettings``.

The names below are loaded on first use: the symbol process imports only the index and
the symbols, and would otherwise pay for the builder, the watcher and their asyncio,
watchfiles and pathspec (~12 MB) in every editor window.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentls.indexer.builder import RepoIndexer
    from agentls.indexer.cache import IndexCache
    from agentls.indexer.index import FileInfo, RepoIndex
    from agentls.indexer.settings import (
        DEFAULT_EXCLUDE_DIRS,
        DEFAULT_EXCLUDE_PATTERNS,
        IndexSettings,
    )
    from agentls.indexer.watcher import ChangeBatch, IndexWatcher

_MODULE_OF = {
    "DEFAULT_EXCLUDE_DIRS": "settings",
    "DEFAULT_EXCLUDE_PATTERNS": "settings",
    "ChangeBatch": "watcher",
    "FileInfo": "index",
    "IndexCache": "cache",
    "IndexSettings": "settings",
    "IndexWatcher": "watcher",
    "RepoIndex": "index",
    "RepoIndexer": "builder",
}

__all__ = [
    "DEFAULT_EXCLUDE_DIRS",
    "DEFAULT_EXCLUDE_PATTERNS",
    "ChangeBatch",
    "FileInfo",
    "IndexCache",
    "IndexSettings",
    "IndexWatcher",
    "RepoIndex",
    "RepoIndexer",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
