"""``RepoIndexer``: builds a ``RepoIndex`` and rescans single paths for the watcher."""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from collections.abc import Iterable
from pathlib import Path

from agentls.indexer.cache import IndexCache
from agentls.indexer.ignore import IgnoreRules
from agentls.indexer.index import RepoIndex
from agentls.indexer.settings import IndexSettings
from agentls.indexer.textstore import TextStore
from agentls.indexer.treescan import scan_tree
from agentls.indexer.walker import KEPT_AS_OTHER, Scanned, list_candidates, scan_file


class RepoIndexer:
    """Knows the rules (settings + ``.gitignore``) and turns paths into index entries."""

    def __init__(
        self,
        root: Path | str,
        settings: IndexSettings | None = None,
        cache: IndexCache | None = None,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.real_root = str(self.root)
        self.settings = settings or IndexSettings()
        self.cache = cache
        self.rules = IgnoreRules(self.root, self.settings)

    # -- listing and scanning ---------------------------------------------------
    def candidates(self, under: str = "") -> tuple[list[str], str]:
        """Paths that pass the rules below ``under``, and how they were listed."""
        return list_candidates(self.root, self.rules, use_git=self.settings.use_git, under=under)

    def scan(self, rel: str) -> Scanned:
        return scan_file(self.real_root, rel, self.settings.max_file_size)

    def scan_many(self, rels: Iterable[str]) -> list[Scanned]:
        root, limit = self.real_root, self.settings.max_file_size
        return [scan_file(root, rel, limit) for rel in rels]

    def new_index(self, source: str = "walk") -> RepoIndex:
        store = TextStore(self.settings.max_text_bytes) if self.settings.hold_text else None
        return RepoIndex(
            self.root, text=store, source=source, max_file_size=self.settings.max_file_size
        )

    # -- building -------------------------------------------------------------------
    def build(self) -> RepoIndex:
        """A full index (blocking: from async code use ``abuild``)."""
        start = time.perf_counter()
        self.rules.invalidate()
        paths, source = self.candidates()
        signature = ""
        if self.cache is not None:
            signature = self.signature(paths)
            # Held text has to be read anyway, and reading is what a build costs:
            # the cache only speeds up an index without text.
            if not self.settings.hold_text:
                cached = self.cache.load(self.root, signature)
                if cached is not None:
                    cached.max_file_size = self.settings.max_file_size
                    return cached
        index = self.new_index(source)
        root, limit = self.real_root, self.settings.max_file_size
        scanned = scan_tree(root, paths, limit, keep_data=index.text is not None)
        index.load(scanned.infos, scanned.datas if index.text is not None else None)
        apply_scans(index, scanned.others)
        index.build_time_ms = (time.perf_counter() - start) * 1000
        index.start_generations()
        if self.cache is not None:
            self.cache.save(index, signature)
        return index

    async def abuild(self) -> RepoIndex:
        return await asyncio.to_thread(self.build)

    def signature(self, paths: list[str]) -> str:
        """A digest of settings + (path, size, mtime) of every candidate: cheap, no reads."""
        digest = hashlib.blake2b(self.settings.key().encode(), digest_size=20)
        root = self.real_root
        for rel in paths:
            try:
                st = os.stat(os.path.join(root, rel))
                stamp = f"{st.st_size}:{st.st_mtime_ns}"
            except OSError:
                stamp = "-"
            digest.update(f"{rel}\0{stamp}\n".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()


def apply_scans(index: RepoIndex, scans: Iterable[Scanned]) -> None:
    """Put scan outcomes into ``index`` (on the index's thread)."""
    for scanned in scans:
        if scanned.info is not None:
            index.put(scanned.info, scanned.data)
        else:
            reason = scanned.skipped or "error"
            index.skipped[reason] += 1
            if reason in KEPT_AS_OTHER:
                index.put_other(scanned.path, reason)
            else:
                index.remove(scanned.path)
