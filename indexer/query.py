"""Search and file finding over a live index when there is one, the disk otherwise.

Both paths produce the same candidates (the same rules) and feed the same bytes to
the same matcher, so results are identical; the index only saves the listing and
the reads.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from agentls.indexer.builder import RepoIndexer
from agentls.indexer.index import RepoIndex
from agentls.indexer.search import Query, SearchResult, path_filter, search
from agentls.indexer.walker import is_file, scan_file


def _reader(real_root: str, max_file_size: int) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        scanned = scan_file(real_root, path, max_file_size)
        return scanned.data if scanned.info is not None else None

    return read


def _is_dir(real_root: str, rel: str) -> bool:
    return rel == "" or os.path.isdir(os.path.join(real_root, rel))


def _sources(
    index: RepoIndex | None, indexer: RepoIndexer, rel: str, keep: Callable[[str], bool] | None
) -> tuple[list[str], list[bytes | None]]:
    real_root = indexer.real_root
    if not _is_dir(real_root, rel):
        # A file named explicitly is searched even if the rules would skip it.
        held = index.text.get(rel) if index is not None and index.text is not None else None
        return [rel], [held]
    if index is not None:
        return index.sources(keep)
    listed, _ = indexer.candidates(under=rel)
    paths = listed if keep is None else [p for p in listed if keep(p)]
    return paths, [None] * len(paths)


async def search_files(
    query: Query,
    *,
    rel: str,
    file_glob: str,
    recursive: bool,
    indexer: RepoIndexer,
    index: RepoIndex | None = None,
) -> SearchResult:
    """Search files below ``rel`` (a directory or a file) matching ``file_glob``.

    ``index`` must be an index of ``indexer.root``; the snapshot of it is taken on
    the calling loop, the matching runs in a worker thread.
    """
    everything = rel == "" and recursive and file_glob in ("", "*")
    keep = None if everything else path_filter(rel, file_glob, recursive=recursive)
    max_size = index.max_file_size if index is not None else indexer.settings.max_file_size
    read = _reader(indexer.real_root, max_size)
    if index is not None:
        paths, held = _sources(index, indexer, rel, keep)  # on the loop: a consistent view
    else:
        paths, held = await asyncio.to_thread(_sources, None, indexer, rel, keep)
    return await asyncio.to_thread(search, paths, held, query, read)


async def find_paths(
    glob: str,
    *,
    rel: str,
    recursive: bool,
    indexer: RepoIndexer,
    index: RepoIndex | None = None,
) -> list[str]:
    """Existing files (text or not) below directory ``rel`` whose name matches ``glob``."""
    keep = path_filter(rel, glob, recursive=recursive)
    if index is not None:
        return sorted(p for p in [*index.paths(), *index.other_paths] if keep(p))

    def listing() -> list[str]:
        listed, _ = indexer.candidates(under=rel)
        return [p for p in listed if keep(p) and is_file(indexer.real_root, p)]

    return await asyncio.to_thread(listing)
