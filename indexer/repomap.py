"""The live symbol index of a RepoIndex and the ranked repo map drawn from it.

A ``SymbolIndex`` follows one RepoIndex and belongs to whoever made it: the symbol source
that answers a run's questions (``LocalSymbols`` in this process, ``SymbolServer`` in the
symbol process), never a table keyed by the index. It fills in on a
background thread (the file index is ready first and never waits for it), reusing
a disk cache entry for every file whose size and mtime are unchanged. Later,
every query first catches up with the RepoIndex: the files whose size or mtime
moved since it last looked are parsed again at once (a few milliseconds each),
so a write the watcher has applied is visible to the next query.

The map ranks files by PageRank over "file A references a name file B defines"
edges, personalised towards the files the task points at (paths and identifiers
named in the prompt, open editors, recent edits), then lists each ranked file with
the signatures of its definitions that matter most, until the token budget is spent.
"""

from __future__ import annotations

import json
import os
import re
import threading
from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentls.indexer.cache import write_json_atomically
from agentls.indexer.index import RepoIndex
from agentls.indexer.symbols import Definition, FileSymbols, extract, grammar_name
from agentls.regular_files import read_regular

#: 3: each file's symbols as the two strings of ``FileSymbols.to_packed``.
CACHE_FORMAT = 3
#: Files at most this many changed since the last look are parsed on the caller's
#: thread (a write, a save); more (a branch switch) go to the background.
SYNC_LIMIT = 64
MAX_PARSE_BYTES = 512_000
#: A name defined in more files than this (``get``, ``run``, ``__init__``) links nothing:
#: it says little about which file a use means, and it would dominate the graph.
MAX_DEFINERS = 5
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_PATHISH = re.compile(r"[\w./-]+\.[A-Za-z0-9]+|[\w-]+/[\w./-]*")


@dataclass(frozen=True, slots=True)
class SymbolHit:
    path: str
    line: int
    kind: str
    name: str
    text: str  # the signature of a definition, the line's text for a reference


@dataclass(frozen=True, slots=True)
class CopiedTree:
    """The tree another one was copied from (a git worktree made from the user's tree),
    with its symbol cache. Its cache entries describe the copy too, file by file, as
    long as the original file is still as the entry found it: same size and mtime now
    as then means unchanged since the entry was made, and so since the copy, which
    came later. The copy's files have new mtimes, so its own cache cannot know them."""

    root: Path
    cache_path: Path


@dataclass(frozen=True, slots=True)
class CopiedFile:
    original: Path
    stamp: tuple[int, int]
    symbols: FileSymbols

    def stands_for(self, copy_stamp: tuple[int, int]) -> bool:
        """Whether these symbols are those of the copy whose (size, mtime) is given."""
        if copy_stamp[0] != self.stamp[0]:
            return False
        try:
            now = os.lstat(self.original)
        except OSError:
            return False
        return (now.st_size, now.st_mtime_ns) == self.stamp


def _read_cache(path: Path, root: Path) -> dict[str, tuple[tuple[int, int], FileSymbols]]:
    """A symbol cache's entries for ``root``, by path; nothing when it is unreadable,
    of another format or of another tree."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("format") != CACHE_FORMAT or data.get("root") != str(root):
            return {}
        out: dict[str, tuple[tuple[int, int], FileSymbols]] = {}
        for name, (size, mtime, *packed) in data["files"].items():
            out[name] = ((size, mtime), FileSymbols.packed(packed))
        return out
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


class SymbolIndex:
    """Symbols of every file the RepoIndex knows in a supported language."""

    def __init__(
        self,
        index: RepoIndex,
        cache_path: Path | None = None,
        *,
        copied_from: CopiedTree | None = None,
    ) -> None:
        """``copied_from``: the tree this one was copied from and its symbol cache,
        whose entries stand for files still as they were there (see ``CopiedTree``)."""
        self.index = index
        self.cache_path = cache_path
        self.copied_from = copied_from
        self._files: dict[str, FileSymbols] = {}
        self._stamps: dict[str, tuple[int, int]] = {}  # path -> (size, mtime_ns)
        #: Handed to a background fill, not stored yet: not handed out twice.
        self._queued: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()
        self._seen_generation = -1
        self._filled = threading.Event()
        self._thread: threading.Thread | None = None

    # -- filling ------------------------------------------------------------------
    def start(self) -> None:
        """Fill in on a daemon thread; returns at once."""
        if self._thread is not None:
            return
        todo = self._stale()
        self._seen_generation = self.index.generation
        self._queue(todo)
        self._thread = threading.Thread(
            target=self._fill, args=(todo,), name="agentls-symbols", daemon=True
        )
        self._thread.start()

    def wait_filled(self, timeout: float | None = None) -> bool:
        return self._filled.wait(timeout)

    @property
    def filled(self) -> bool:
        return self._filled.is_set()

    def _stale(self, among: Iterable[str] | None = None) -> list[tuple[str, str, tuple[int, int]]]:
        """(path, grammar, stamp) of files whose symbols are missing or old, of every file
        or only of the paths ``among``; drops the symbols of files that are gone."""
        out: list[tuple[str, str, tuple[int, int]]] = []
        infos = self.index.files if among is None else [self.index.get(p) for p in among]
        known: set[str] = set()
        for info in infos:
            if info is None:
                continue
            grammar = grammar_name(info.language, info.ext)
            if grammar is None or info.size > MAX_PARSE_BYTES:
                continue
            known.add(info.path)
            stamp = (info.size, info.mtime_ns)
            if self._stamps.get(info.path) != stamp and self._queued.get(info.path) != stamp:
                out.append((info.path, grammar, stamp))
        with self._lock:
            candidates = list(self._files) if among is None else list(among)
            for gone in [p for p in candidates if p in self._files and p not in known]:
                del self._files[gone]
                self._stamps.pop(gone, None)
        return out

    def _fill(self, todo: list[tuple[str, str, tuple[int, int]]]) -> None:
        cached = self._load_cache()
        copied: dict[str, CopiedFile] | None = None  # read at the first file not cached
        parsed = 0
        for path, grammar, stamp in todo:
            hit = cached.get(path)
            if hit is not None and hit[0] == stamp:
                self._store(path, hit[1], stamp)
                continue
            if copied is None:
                copied = self._copied_symbols()
            source = copied.get(path)
            if source is not None and source.stands_for(stamp):
                self._store(path, source.symbols, stamp)
            else:
                self._parse(path, grammar, stamp)
            parsed += 1
        if parsed:
            self._save_cache()
        self._filled.set()

    def _copied_symbols(self) -> dict[str, CopiedFile]:
        """The symbols of the tree this one was copied from, by path (none if unknown)."""
        origin = self.copied_from
        if origin is None:
            return {}
        entries = _read_cache(origin.cache_path, origin.root)
        return {
            path: CopiedFile(origin.root / path, stamp, symbols)
            for path, (stamp, symbols) in entries.items()
        }

    def _parse(self, path: str, grammar: str, stamp: tuple[int, int]) -> None:
        try:
            # Never blocks on a FIFO left where an indexed file was.
            source = read_regular(os.path.realpath(self.index.root / path), MAX_PARSE_BYTES + 1)
        except OSError:
            return
        try:
            symbols = extract(source, grammar)
        except Exception:  # a grammar bug must not stop the other files
            symbols = FileSymbols()
        self._store(path, symbols, stamp)

    def _store(self, path: str, symbols: FileSymbols, stamp: tuple[int, int]) -> None:
        with self._lock:
            self._files[path] = symbols
            self._stamps[path] = stamp
            if self._queued.get(path) == stamp:
                del self._queued[path]

    def refresh(self) -> None:
        """Catch up with the RepoIndex: changed files parsed now, a flood in the background."""
        if self._thread is None:
            self.start()
            return
        generation = self.index.generation
        if generation == self._seen_generation:
            return
        changed = self.index.changed_since(self._seen_generation)
        self._seen_generation = generation
        todo = self._stale(changed)  # every file only when the change log falls short
        if len(todo) <= SYNC_LIMIT:
            for path, grammar, stamp in todo:
                self._parse(path, grammar, stamp)
        else:
            self._queue(todo)
            threading.Thread(target=self._fill, args=(todo,), daemon=True).start()

    def _queue(self, todo: list[tuple[str, str, tuple[int, int]]]) -> None:
        with self._lock:
            self._queued.update((path, stamp) for path, _grammar, stamp in todo)

    def update_file(self, path: str) -> None:
        """Parse ``path`` again now (the caller knows it changed)."""
        info = self.index.get(path)
        grammar = grammar_name(info.language, info.ext) if info is not None else None
        if info is None or grammar is None:
            with self._lock:
                self._files.pop(path, None)
                self._stamps.pop(path, None)
            return
        self._parse(path, grammar, (info.size, info.mtime_ns))

    # -- disk cache ----------------------------------------------------------------
    def _load_cache(self) -> dict[str, tuple[tuple[int, int], FileSymbols]]:
        if self.cache_path is None:
            return {}
        return _read_cache(self.cache_path, self.index.root)

    def _save_cache(self) -> None:
        """Atomic write; a failure only costs the next start its parsing."""
        if self.cache_path is None:
            return
        with self._lock:
            files = {
                path: [*self._stamps[path], *symbols.to_packed()]
                for path, symbols in self._files.items()
            }
        data = {"format": CACHE_FORMAT, "root": str(self.index.root), "files": files}
        write_json_atomically(self.cache_path, data, prefix=".symbols-")

    # -- queries -------------------------------------------------------------------
    def files(self) -> dict[str, FileSymbols]:
        self.refresh()
        with self._lock:
            return dict(self._files)

    def find_definitions(self, name: str, kind: str | None = None) -> list[SymbolHit]:
        hits = [
            SymbolHit(path, d.line, d.kind, d.name, d.signature)
            for path, symbols in self.files().items()
            if symbols.defines(name)
            for d in symbols.definitions
            if d.name == name and (kind is None or d.kind == kind)
        ]
        return sorted(hits, key=lambda h: (h.path, h.line))

    def search_definitions(self, query: str, limit: int) -> list[SymbolHit]:
        """The ``limit`` definitions whose names match ``query`` best (fuzzy), best first."""
        from agentls.indexer.fuzzy import best

        everything = (
            SymbolHit(path, d.line, d.kind, d.name, d.signature)
            for path, symbols in sorted(self.files().items())
            for d in symbols.definitions
        )
        return best(query, everything, lambda hit: hit.name, limit)

    def find_references(self, name: str) -> list[SymbolHit]:
        hits: list[SymbolHit] = []
        for path, symbols in sorted(self.files().items()):
            for line in symbols.lines_of(name):
                hits.append(SymbolHit(path, line, "reference", name, ""))
        return hits


# -- ranking and rendering ------------------------------------------------------------
@dataclass(frozen=True)
class MapFocus:
    """What the task points at."""

    prompt: str = ""
    open_paths: Sequence[str] = ()
    recent_paths: Sequence[str] = ()


def estimate_tokens(text: str) -> int:
    """About four characters a token, as the context budget counts elsewhere."""
    return (len(text) + 3) // 4


#: A file's out-edges for the ranking: the targets' positions and their shares of its weight.
Edges = tuple["array[int]", "array[float]"]


def _pagerank(
    base: list[float],
    out: list[Edges | None],
    rounds: int = 30,
    damping: float = 0.85,
    tolerance: float = 1e-6,
) -> list[float]:
    """Personalised PageRank by power iteration, stopping once it has converged."""
    rank = list(base)
    for _ in range(rounds):
        nxt = [(1 - damping) * b for b in base]
        dangling = 0.0
        for i, targets in enumerate(out):
            r = rank[i]
            if targets is None:
                dangling += r
                continue
            r *= damping
            for j, share in zip(*targets, strict=True):
                nxt[j] += r * share
        spread = damping * dangling
        nxt = [v + spread * b for v, b in zip(nxt, base, strict=True)]
        moved = sum(abs(a - b) for a, b in zip(nxt, rank, strict=True))
        rank = nxt
        if moved < tolerance:
            break
    return rank


def reference_totals(files: dict[str, FileSymbols]) -> dict[str, int]:
    """How many kept reference lines each name has, over every file."""
    referenced: dict[str, int] = defaultdict(int)
    for symbols in files.values():
        for name, count in symbols.reference_counts():
            referenced[name] += count
    return referenced


def _reference_graph(
    files: dict[str, FileSymbols],
    position: dict[str, int],
    referenced: dict[str, int],
    words: set[str],
) -> list[Edges | None]:
    """Each file's out-edges, by position: to the files that define the names it refers to.

    Files are positions and edges are arrays, not paths in dicts of dicts: on a 50k-file
    tree the graph's objects were most of a map's memory, and the symbol process's peak
    is what a window pays during a run.
    """
    # Only names some file refers to can make an edge: a large workspace defines
    # hundreds of thousands of names. Most names have one definer: a bare position.
    definers: dict[str, int | list[int]] = {}
    for path, symbols in files.items():
        at = position[path]
        for name in referenced.keys() & set(symbols.names()):
            have = definers.get(name)
            if have is None:
                definers[name] = at
            elif isinstance(have, int):
                definers[name] = [have, at]
            else:
                have.append(at)
    out: list[Edges | None] = [None] * len(position)
    for path, symbols in files.items():
        src = position[path]
        weighted: dict[int, float] = {}
        for name, count in symbols.reference_counts():
            found = definers.get(name)
            if found is None:
                continue
            targets = (found,) if isinstance(found, int) else found
            if len(targets) > MAX_DEFINERS:
                continue
            weight = count * (10.0 if name in words else 1.0) / len(targets)
            for target in targets:
                if target != src:
                    weighted[target] = weighted.get(target, 0.0) + weight
        total = sum(weighted.values())
        if total > 0:
            out[src] = (array("l", weighted), array("d", [w / total for w in weighted.values()]))
    return out


def rank_files(
    files: dict[str, FileSymbols], focus: MapFocus, referenced: dict[str, int] | None = None
) -> list[tuple[str, float]]:
    """Files by importance for this task, best first (ties by path: stable bytes).
    ``referenced``: ``reference_totals(files)``, when the caller has it already."""
    if not files:
        return []
    words = set(_WORD.findall(focus.prompt))
    nodes = sorted(files)
    position = {path: i for i, path in enumerate(nodes)}
    if referenced is None:
        referenced = reference_totals(files)
    out = _reference_graph(files, position, referenced, words)
    named_paths = {p.strip("./") for p in _PATHISH.findall(focus.prompt)}
    personal: dict[str, float] = {}
    for path, symbols in files.items():
        score = 0.0
        if not words.isdisjoint(symbols.names()):
            score += 10.0
        if path in named_paths or any(n and path.endswith(n) for n in named_paths):
            score += 10.0
        base = path.rsplit("/", 1)[-1]
        if base in named_paths or base.split(".")[0] in words:
            score += 3.0
        if score:
            personal[path] = score
    for path in focus.open_paths:
        if path in files:
            personal[path] = personal.get(path, 0.0) + 5.0
    for path in focus.recent_paths:
        if path in files:
            personal[path] = personal.get(path, 0.0) + 3.0
    total = sum(personal.values())
    start = [personal.get(n, 0.0) / total if total > 0 else 1.0 / len(nodes) for n in nodes]
    rank = _pagerank(start, out)
    # The files the task names come first whatever the graph says.
    return sorted(
        ((n, r + personal.get(n, 0.0)) for n, r in zip(nodes, rank, strict=True)),
        key=lambda item: (-item[1], item[0]),
    )


def _definition_order(
    symbols: FileSymbols, words: set[str], referenced: dict[str, int]
) -> list[Definition]:
    """Named in the prompt first, then the most referenced, in file order among equals."""
    return sorted(
        symbols.definitions,
        key=lambda d: (d.name not in words, -referenced.get(d.name, 0), d.line),
    )


def render_map(files: dict[str, FileSymbols], focus: MapFocus, max_tokens: int) -> str:
    """The ranked map within ``max_tokens``: ``path:`` then ``  line: signature`` lines.

    Deterministic for the same files and focus, so a run that renders it once
    sends the same bytes every step.
    """
    if max_tokens <= 0 or not files:
        return ""
    words = set(_WORD.findall(focus.prompt))
    referenced = reference_totals(files)
    budget = max_tokens * 4
    out: list[str] = []
    used = 0
    for path, _score in rank_files(files, focus, referenced):
        symbols = files[path]
        if not symbols.count:
            continue
        header = f"{path}:"
        if used + len(header) + 1 > budget:
            break
        block = [header]
        size = len(header) + 1
        shown = _definition_order(symbols, words, referenced)[:12]
        for d in sorted(shown, key=lambda d: d.line):
            line = f"  {d.line}: {d.signature or d.name}"
            if used + size + len(line) + 1 > budget:
                break
            block.append(line)
            size += len(line) + 1
        if len(block) == 1:
            break
        out.extend(block)
        used += size
    return "\n".join(out)


def paths_in(paths: Iterable[str], root: Path) -> list[str]:
    """Workspace-relative forms of the absolute ``paths`` under ``root``."""
    out: list[str] = []
    for raw in paths:
        try:
            out.append(Path(raw).resolve().relative_to(root).as_posix())
        except (ValueError, OSError):
            continue
    return out
