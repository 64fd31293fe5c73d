"""The repository index: file map, held text, live updates and search.

Knows nothing of the agent or LSP: front ends pass plain ``IndexSettings``.
"""

from agentls.indexer.builder import RepoIndexer
from agentls.indexer.cache import IndexCache
from agentls.indexer.index import FileInfo, RepoIndex
from agentls.indexer.settings import DEFAULT_EXCLUDE_DIRS, DEFAULT_EXCLUDE_PATTERNS, IndexSettings
from agentls.indexer.watcher import ChangeBatch, IndexWatcher

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
