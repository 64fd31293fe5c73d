"""The live map of the workspace: ``FileInfo`` per indexed file, totals, held text.

Mutations happen on one thread (the event loop the watcher runs in); readers on
that loop always see a consistent index. Work that must leave the loop (search)
takes a ``sources()`` snapshot first: lists and immutable bytes, safe to read in
a thread while the loop keeps applying changes.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentls.indexer.textstore import TextStore


@dataclass(slots=True)
class FileInfo:
    """One indexed text file. ``path`` is workspace-relative with ``/`` separators.

    A string rather than a ``Path``: cheap to hash and sort for 50k files, JSON-ready,
    and file names that are not UTF-8 survive as surrogate escapes (``os.fsdecode``).
    """

    path: str
    size: int
    ext: str
    language: str
    lines: int
    mtime_ns: int = 0


#: How many single-file changes ``changed_since`` can report before a follower must rescan.
CHANGE_LOG_SIZE = 4096


class RepoIndex:
    """Indexed text files plus the other (binary, too large) files that exist.

    ``generation`` grows with every applied change, so a reader can tell whether
    the index moved since it last looked.
    """

    def __init__(
        self,
        root: Path | str,
        *,
        text: TextStore | None = None,
        build_time_ms: float = 0.0,
        source: str = "walk",
        max_file_size: int = 1_000_000,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        #: Files not held are read from disk under the same size limit as indexing.
        self.max_file_size = max_file_size
        self.text = text
        self.build_time_ms = build_time_ms
        self.source = source  # "git", "walk" or "cache"
        self.generation = 0
        #: Files left out, by reason (binary, too_large, missing, error, outside_root...).
        self.skipped: Counter[str] = Counter()
        self._files: dict[str, FileInfo] = {}
        self._other: dict[str, str] = {}
        self._sorted: list[str] | None = None
        #: (generation, paths, held) of the last unfiltered ``sources()``; callers only read.
        self._all_sources: tuple[int, list[str], list[bytes | None]] | None = None
        self._total_lines = 0
        self._languages: Counter[str] = Counter()
        #: (generation, path) of the latest single-file changes: a follower catches up
        #: with the few files a save touched instead of scanning every file.
        self._changes: deque[tuple[int, str]] = deque(maxlen=CHANGE_LOG_SIZE)

    # -- reading -----------------------------------------------------------------
    @property
    def files(self) -> list[FileInfo]:
        """Indexed files in path order."""
        return [self._files[p] for p in self.paths()]

    def paths(self) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self._files)
        return self._sorted

    def get(self, path: str) -> FileInfo | None:
        return self._files.get(path)

    def __contains__(self, path: object) -> bool:
        return path in self._files

    @property
    def other_paths(self) -> dict[str, str]:
        """Existing files not indexed as text (binary, too large) → reason."""
        return dict(self._other)

    def known(self, path: str) -> bool:
        """An existing file the index knows about, indexed or not."""
        return path in self._files or path in self._other

    @property
    def total_files(self) -> int:
        return len(self._files)

    @property
    def total_lines(self) -> int:
        return self._total_lines

    @property
    def languages(self) -> dict[str, int]:
        """Language → number of files, most common first."""
        return dict(self._languages.most_common())

    @property
    def holds_text(self) -> bool:
        return self.text is not None

    def sources(
        self, keep: Callable[[str], bool] | None = None
    ) -> tuple[list[str], list[bytes | None]]:
        """Paths (in order, filtered by ``keep``) and their held bytes, None meaning
        "read it from disk" (text not held, or refused by the cap).

        Two flat lists rather than pairs: 50k small tuples would wake the garbage
        collector, which then walks the whole index (~100 ms measured).
        """
        if keep is not None:
            paths = [p for p in self.paths() if keep(p)]
            store = self.text
            return paths, ([None] * len(paths) if store is None else [store.get(p) for p in paths])
        # The whole tree, as every unfiltered search asks: kept until the index changes.
        cached = self._all_sources
        if cached is not None and cached[0] == self.generation:
            return cached[1], cached[2]
        paths = list(self.paths())
        store = self.text
        held: list[bytes | None] = (
            [None] * len(paths) if store is None else [store.get(p) for p in paths]
        )
        self._all_sources = (self.generation, paths, held)
        return paths, held

    def format_tree(self, max_chars: int = 12_000, detailed_limit: int = 300) -> str:
        """The workspace map for the system prompt (see ``indexer.tree``)."""
        from agentls.indexer.tree import format_tree

        return format_tree(self, max_chars=max_chars, detailed_limit=detailed_limit)

    def snapshot(self) -> dict[str, tuple[int, int, str]]:
        """Comparable content: path → (size, lines, language), others included."""
        out = {p: (f.size, f.lines, f.language) for p, f in self._files.items()}
        out.update({p: (-1, -1, reason) for p, reason in self._other.items()})
        return out

    # -- mutation (one thread only) ---------------------------------------------
    def put(self, info: FileInfo, data: bytes | None = None) -> None:
        """Add or replace an indexed file; ``data`` is held when the index holds text."""
        path = info.path
        self._other.pop(path, None)
        old = self._files.get(path)
        if old is None:
            self._sorted = None
        else:
            self._total_lines -= old.lines
            self._languages[old.language] -= 1
            if self._languages[old.language] <= 0:
                del self._languages[old.language]
        self._files[path] = info
        self._total_lines += info.lines
        self._languages[info.language] += 1
        if self.text is not None:
            if data is None:
                self.text.discard(path)
            else:
                self.text.put(path, data)
        self._changed(path)

    def load(self, infos: list[FileInfo], datas: list[bytes] | None) -> None:
        """Add many files at once: what ``put`` does per file, in bulk when the index is
        empty (a fresh build). ``datas[i]`` is the text of ``infos[i]`` (None: no text to hold)."""
        if self._files or self._other:
            for i, info in enumerate(infos):  # not empty: the careful way
                self.put(info, None if datas is None else datas[i])
            return
        paths = [info.path for info in infos]
        self._files.update(zip(paths, infos, strict=True))
        self._sorted = None
        self._total_lines += sum(info.lines for info in infos)
        self._languages.update(info.language for info in infos)
        if self.text is not None and datas is not None:
            self.text.put_many(paths, datas)
        self.generation += len(infos)

    def put_other(self, path: str, reason: str) -> None:
        """Record an existing file that is not indexed as text."""
        self.remove(path)
        self._other[path] = reason
        self._changed(path)

    def remove(self, path: str) -> bool:
        """Forget ``path``; True when it was known."""
        known = path in self._other
        self._other.pop(path, None)
        old = self._files.pop(path, None)
        if old is not None:
            known = True
            self._sorted = None
            self._total_lines -= old.lines
            self._languages[old.language] -= 1
            if self._languages[old.language] <= 0:
                del self._languages[old.language]
            if self.text is not None:
                self.text.discard(path)
        if known:
            self._changed(path)
        return known

    def _changed(self, path: str) -> None:
        self.generation += 1
        self._changes.append((self.generation, path))

    def start_generations(self) -> None:
        """A freshly built index starts at generation 0, with nothing in its change log."""
        self.generation = 0
        self._changes.clear()

    def changed_since(self, generation: int) -> list[str] | None:
        """The paths changed after ``generation``; None when the log does not reach back
        that far (a bulk load, or too many changes): then a follower must rescan."""
        if generation == self.generation:
            return []
        paths = [path for gen, path in list(self._changes) if gen > generation]
        return paths if len(paths) == self.generation - generation else None

    def known_under(self, prefix: str) -> list[str]:
        """Known paths below directory ``prefix`` (for a directory deleted or moved away)."""
        start = prefix.rstrip("/") + "/"
        found = [p for p in self._files if p.startswith(start)]
        found += [p for p in self._other if p.startswith(start)]
        return found
