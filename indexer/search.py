"""Regex and literal search over file bytes, from held text or from disk.

Both sources go through the same matcher on the same bytes, so results do not
depend on whether the text was held. Speed comes from: a pre-scan for a literal
every match must contain (skips most files without running the regex), one
whole-file search instead of a loop over lines, and line numbers counted only
up to each hit. Patterns match UTF-8 bytes: ``\\w``, ``\\d``, ``\\s`` and
case-insensitivity are ASCII-only (like ``grep`` in the C locale).
"""

from __future__ import annotations

import fnmatch
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, islice

from agentls.indexer.accelerated import Matcher, Running, lines_from_ends, matcher_for
from agentls.indexer.lines import (
    Line,
    Span,
    finder,
    line_number,
    line_text,
    literal_lines,
    literal_spans,
    numbered_lines,
)
from agentls.indexer.literals import line_local, required_literals
from agentls.indexer.tree import display

Reader = Callable[[str], bytes | None]


@dataclass(frozen=True)
class Query:
    """A compiled search. Build it with ``compile_query`` (raises ``re.error``)."""

    regex: re.Pattern[bytes]
    #: A match contains one of these (bytes; lower-cased when ``fold``), or None.
    literals: tuple[bytes, ...] | None
    fold: bool
    #: Pure literal search: ``find`` replaces the regex.
    needle: bytes | None
    #: Matches never span lines: only lines holding a literal are handed to the regex.
    local: bool = False
    context_lines: int = 0
    max_results: int = 50
    #: Hyperscan finds the candidate lines when it is installed and can be exact.
    matcher: Matcher | None = None


def compile_query(
    pattern: str,
    *,
    literal: bool = False,
    case_sensitive: bool = True,
    context_lines: int = 0,
    max_results: int = 50,
    accelerate: bool = True,
) -> Query:
    flags = re.MULTILINE if case_sensitive else re.MULTILINE | re.IGNORECASE
    source = re.escape(pattern) if literal else pattern
    re.compile(source, flags)  # the str form first: its error messages quote the pattern
    regex = re.compile(source.encode("utf-8", "surrogateescape"), flags)
    needle: bytes | None = None
    literals: tuple[bytes, ...] | None = None
    fold = not case_sensitive
    if literal and pattern and "\n" not in pattern:
        raw = pattern.encode("utf-8", "surrogateescape")
        needle = raw.lower() if fold else raw
        literals = (needle,)
    elif not literal:
        found = required_literals(pattern, flags)
        if found is not None:
            texts, fold = found
            encoded = [t.encode("utf-8", "surrogateescape") for t in texts]
            literals = tuple(e.lower() for e in encoded) if fold else tuple(encoded)
    one_line = needle is None and line_local(pattern, flags)
    local = literals is not None and one_line
    matcher = matcher_for(regex, needle, fold, one_line) if accelerate else None
    return Query(
        regex, literals, fold, needle, local, max(0, context_lines), max(1, max_results), matcher
    )


@dataclass
class SearchResult:
    #: One tuple of lines per run of adjacent lines (per file, without context lines).
    groups: list[tuple[Line, ...]] = field(default_factory=list)
    matches: int = 0
    truncated: bool = False
    files_searched: int = 0
    files_matched: int = 0

    def render(self, context_lines: int, max_results: int) -> str:
        out: list[str] = []
        for i, group in enumerate(self.groups):
            if i and context_lines > 0:
                out.append("--")
            for line in group:
                sep = ":" if line.is_match else "-"
                out.append(f"{display(line.path)}{sep}{line.number}{sep} {line.text}")
        if self.truncated:
            out.append(f"[results truncated at {max_results} matches]")
        return "\n".join(out)


def _match_starts(
    data: bytes, query: Query, limit: int, hay: bytes | None = None, first: int = 0
) -> list[tuple[int, int]]:
    """(line start, line end) of up to ``limit`` matching lines, in order. ``hay`` and
    ``first``: see ``_literal_lines`` (a regex search does not need them)."""
    if query.needle is not None or query.local:
        return _literal_lines(data, query, limit, hay, first)
    out: list[tuple[int, int]] = []
    size = len(data)
    pos = 0
    search = query.regex.search
    while pos <= size and len(out) < limit:
        m = search(data, pos)
        if m is None:
            break
        at = m.start()
        start = data.rfind(b"\n", 0, at) + 1
        if start == size:
            break  # the empty "line" after a final newline is not a line
        end = data.find(b"\n", at)
        if end < 0:
            end = size
        out.append((start, end))
        pos = end + 1
    return out


def _literal_lines(
    data: bytes, query: Query, limit: int, hay: bytes | None = None, first: int = 0
) -> list[tuple[int, int]]:
    """Lines holding the literal of a literal search; for a line-local regex, the lines
    holding one of its literals that the regex also matches.

    ``hay`` is ``data`` as searched (lower-cased when folding) when the caller has it;
    with one literal, ``first`` is where the caller found it (no need to look again).
    """
    assert query.literals is not None
    if hay is None:
        hay = data.lower() if query.fold else data
    if query.needle is not None:  # a literal search
        return literal_spans(hay, query.needle, first, limit)
    literals, regex = query.literals, query.regex
    out: list[tuple[int, int]] = []
    if len(literals) == 1:  # the common case, without the bookkeeping below
        # The lines holding the literal come in runs from the native scan; the regex
        # checks each. A run asks for as many lines as are still wanted: one that comes
        # back short was the last.
        lit, search = literals[0], regex.search
        at = first
        while limit > 0:
            wanted = limit
            candidates = literal_spans(hay, lit, at, wanted)
            for start, end in candidates:
                if search(data, start, end) is not None:
                    out.append((start, end))
                    limit -= 1
            if len(candidates) < wanted:
                break
            at = candidates[-1][1] + 1
        return out
    # Next occurrence of each literal at or after ``pos``; recomputed only when passed.
    size = len(data)
    find = finder()
    nexts = [find(hay, lit, 0) for lit in literals]
    pos = 0
    while len(out) < limit:
        live = [n for n in nexts if n >= 0]
        if not live:
            break
        at = min(live)
        start = hay.rfind(b"\n", 0, at) + 1
        end = hay.find(b"\n", at)
        if end < 0:
            end = size
        if regex.search(data, start, end) is not None:
            out.append((start, end))
        pos = end + 1
        nexts = [
            n if n >= pos or n < 0 else find(hay, lit, pos)
            for n, lit in zip(nexts, literals, strict=True)
        ]
    return out


def _might_match(data: bytes, query: Query) -> bool:
    literals = query.literals
    if literals is None:
        return True
    hay = data.lower() if query.fold else data
    find = finder()
    return any(find(hay, lit, 0) >= 0 for lit in literals)


def _groups_for_file(
    path: str, data: bytes, hits: list[tuple[int, int]], context: int
) -> list[tuple[Line, ...]]:
    if context == 0:  # one group: nothing separates lines without context
        return [numbered_lines(path, data, hits)]

    size = len(data)
    match_starts = {start for start, _ in hits}
    groups: list[list[Line]] = []
    number, counted = 1, 0
    last_emitted = 0  # line number of the last line already printed
    for start, _end in hits:
        number = line_number(data, number, counted, start)
        counted = start
        if number <= last_emitted:
            continue  # already printed as the trailing context of an earlier hit
        # Walk back over the leading context, without re-printing lines.
        first = max(1, number - context, last_emitted + 1)
        begin = start
        for _ in range(number - first):
            begin = data.rfind(b"\n", 0, begin - 1) + 1
        if groups and first == last_emitted + 1:
            group = groups[-1]
        else:
            group = []
            groups.append(group)
        line_no, pos = first, begin
        stop_no = number + context
        while line_no <= stop_no and pos <= size:
            end = data.find(b"\n", pos)
            if end < 0:
                end = size
            if pos == size and line_no > number:
                break  # no phantom line after a final newline
            group.append(Line(path, line_no, line_text(data, pos, end), pos in match_starts))
            last_emitted = line_no
            line_no += 1
            pos = end + 1
            # The trailing context ends early if another hit starts: that hit extends it.
            if line_no > number and pos in match_starts:
                break
    return [tuple(group) for group in groups]


def _take(result: SearchResult, found: int, query: Query) -> int:
    """How many of one file's ``found`` matching lines fit in the output; counts them,
    and marks the output truncated when not all fit."""
    room = query.max_results - result.matches
    if found > room:
        found = room
        result.truncated = True
    if found:
        result.files_matched += 1
        result.matches += found
    return found


def _add_hits(result: SearchResult, path: str, data: bytes, hits: list[Span], query: Query) -> bool:
    """Record one file's matching lines; True once the output is full (stop searching)."""
    taken = _take(result, len(hits), query)
    if taken:
        kept = hits if taken == len(hits) else hits[:taken]
        result.groups.extend(_groups_for_file(path, data, kept, query.context_lines))
    return result.truncated


def _add_lines(result: SearchResult, lines: tuple[Line, ...], query: Query) -> bool:
    """``_add_hits`` for the lines of one file made in one go (no context lines)."""
    taken = _take(result, len(lines), query)
    if taken:
        result.groups.append(lines if taken == len(lines) else lines[:taken])
    return result.truncated


def search(
    paths: Sequence[str], helds: Sequence[bytes | None], query: Query, read: Reader
) -> SearchResult:
    """Search ``paths`` in order. ``helds[i]`` is the text of ``paths[i]`` held in
    memory, or None: then ``read(path)`` supplies it from disk.

    Two flat sequences rather than pairs: 50k small tuples would wake the garbage
    collector, which then walks the whole index.
    """
    result = SearchResult()
    if query.matcher is None:
        _search_python(result, zip(paths, helds, strict=True), query, read)
        return result
    done = _search_batches(result, paths, helds, query, read, query.matcher)
    if done < len(paths) and not result.truncated:  # dense hits: Python is faster
        # Not slices: a new list of 57k items is walked by every garbage collection
        # while the search allocates its lines (~7 ms each time, measured).
        rest = zip(islice(paths, done, None), islice(helds, done, None), strict=True)
        _search_python(result, rest, query, read)
    return result


def _search_python(
    result: SearchResult, sources: Iterable[tuple[str, bytes | None]], query: Query, read: Reader
) -> None:
    # One more than asked, to know whether the output was cut.
    budget = query.max_results + 1
    literals = query.literals
    # Most files hold no match: reject them with one `find` and no function call; in
    # the others the search starts where that `find` stopped.
    single = literals[0] if literals is not None and len(literals) == 1 else None
    fold = query.fold
    # A literal search without context: each file's lines in one call, no spans.
    direct = query.needle is not None and query.context_lines == 0
    find = finder()
    for path, held in sources:
        data = held if held is not None else read(path)
        if data is None:
            continue
        result.files_searched += 1
        hay, first = None, 0
        if single is not None:
            hay = data.lower() if fold else data
            first = find(hay, single, 0)
            if first < 0:
                continue
            if direct:
                lines = literal_lines(path, data, hay, single, first, budget - result.matches)
                if _add_lines(result, lines, query):
                    return
                continue
        elif literals is not None and not _might_match(data, query):
            continue
        hits = _match_starts(data, query, budget - result.matches, hay, first)
        if _add_hits(result, path, data, hits, query):
            return


def _read_batch(
    paths: Sequence[str], helds: Sequence[bytes | None], first: int, size: int, read: Reader
) -> tuple[list[bytes], list[int], int]:
    """About ``size`` bytes of sources from ``first``, read from disk where not held:
    (their bytes, their source indices, the index after the last one looked at)."""
    datas: list[bytes] = []
    at: list[int] = []
    total, stop = 0, first
    while stop < len(paths) and total < size:
        data = helds[stop]
        if data is None:
            data = read(paths[stop])
        if data is not None:
            datas.append(data)
            at.append(stop)
            total += len(data)
        stop += 1
    return datas, at, stop


#: Bytes per Hyperscan call: small first (a search that stops at the first results
#: should not scan the whole tree), then doubling, to amortise the per-call cost.
FIRST_BATCH_BYTES = 256 * 1024
#: The fewest match reports a scan collects before it stops to hand them over.
MIN_REPORTS_PER_SCAN = 1024
MAX_BATCH_BYTES = 32 * 1024 * 1024
#: Past this many reported matches per MiB, each match's callback into Python costs
#: more than the scan saves: the rest of the search runs in Python alone.
DENSE_REPORTS_PER_MIB = 400


class _RunningTotals:
    """Running totals of the held sizes, summed only as far as the search goes: a
    search that stops at its first 100 results need not read 57k sizes (each one a
    cache miss, ~0.3 µs). A source not held (None) counts as empty."""

    #: Sizes summed by the first extension; each extension doubles what is summed.
    STEP = 128
    MAX_STEP = 8192

    def __init__(self, helds: Sequence[bytes | None]) -> None:
        self._helds = helds
        self.totals: list[int] = []

    def _extend(self) -> None:
        done = len(self.totals)
        base = self.totals[-1] if done else 0
        chunk = self._helds[done : done + min(max(self.STEP, done), self.MAX_STEP)]
        try:
            sizes = list(map(len, chunk))  # type: ignore[arg-type]  # a None: TypeError
        except TypeError:
            sizes = [0 if data is None else len(data) for data in chunk]
        more = accumulate(sizes, initial=base)
        next(more)  # the initial value itself
        self.totals.extend(more)

    def __getitem__(self, index: int) -> int:
        while index >= len(self.totals):
            self._extend()
        return self.totals[index]

    def bisect(self, value: int, low: int) -> int:
        """The first index from ``low`` whose total is >= ``value`` (len when none)."""
        while (not self.totals or self.totals[-1] < value) and len(self.totals) < len(self._helds):
            self._extend()
        return bisect_left(self.totals, value, low)


@dataclass
class _Batch:
    datas: Sequence[bytes]
    at: Sequence[int]  # source index of each entry (unreadable files left out)
    stop: int  # source index after the last one looked at
    running: Running | None = None  # running totals of sizes, when all are held


def _search_batches(
    result: SearchResult,
    paths: Sequence[str],
    helds: Sequence[bytes | None],
    query: Query,
    read: Reader,
    matcher: Matcher,
) -> int:
    """Hyperscan finds the candidate lines, a batch of files per call. Returns how
    many sources were searched (fewer than all when the output filled up or hits are
    dense).

    The batches are scanned one after the other in this thread. Scanning the next
    batch in other threads while this one is turned into lines (Hyperscan releases
    the GIL) was measured slower on 2 cores, for the first 100 results and for every
    result alike: each hand-over costs a thread wake-up, and the scan's match
    callbacks compete for the GIL with the line-building.
    """
    budget = query.max_results + 1
    total = len(paths)
    check = None if matcher.exact else query.regex
    # Held text (the usual case with an index): a batch is a slice, cut where the
    # running total of sizes passes the batch size; no Python loop over files. That
    # all is held is checked a batch at a time: `None in helds` over 57k files costs
    # ~5 ms, more than a whole search that stops at its first 100 results.
    ends = _RunningTotals(helds)

    def batch_from(first: int, size: int) -> _Batch:
        if helds[first] is not None:
            base = ends[first - 1] if first else 0
            stop = min(total, ends.bisect(base + size, first) + 1)
            datas = helds[first:stop]
            if None not in datas:
                return _Batch(datas, range(first, stop), stop, (ends.totals, first, base))  # type: ignore[arg-type]
        datas, at, stop = _read_batch(paths, helds, first, size, read)  # some from disk
        return _Batch(datas, at, stop)

    size = FIRST_BATCH_BYTES
    first = scanned = reports = 0
    while first < total:
        batch = batch_from(first, size)
        size = min(size * 2, MAX_BATCH_BYTES)
        first = batch.stop
        if not batch.datas:
            continue
        # No more match callbacks than the output can use (a line may hold a few
        # matches; a scan cut short is resumed where it stopped).
        wanted = max(4 * (budget - result.matches), MIN_REPORTS_PER_SCAN)
        per_file, done = matcher.scan(batch.datas, batch.running, wanted)
        if done == 0:  # one file with more matches than a scan collects: Python for it
            return batch.at[0]
        for index in sorted(per_file):
            data = batch.datas[index]
            hits = lines_from_ends(data, per_file[index], budget - result.matches, check)
            if _add_hits(result, paths[batch.at[index]], data, hits, query):
                result.files_searched += index + 1
                return batch.at[index] + 1
        result.files_searched += done
        if done < len(batch.datas):  # cut short: resume at the first file not done
            first = batch.at[done]
        scanned += sum(map(len, batch.datas[:done]))
        reports += sum(map(len, per_file.values()))
        if reports > DENSE_REPORTS_PER_MIB * max(scanned, FIRST_BATCH_BYTES) / 2**20:
            return first
    return total


# -- selecting files ------------------------------------------------------------------
def expand_braces(pattern: str) -> list[str]:
    """``*.{ts,tsx}`` → ``["*.ts", "*.tsx"]`` (one level, as models often write)."""
    open_at = pattern.find("{")
    close_at = pattern.find("}", open_at + 1)
    if open_at < 0 or close_at < 0:
        return [pattern]
    head, body, tail = pattern[:open_at], pattern[open_at + 1 : close_at], pattern[close_at + 1 :]
    out: list[str] = []
    for choice in body.split(","):
        out.extend(expand_braces(head + choice + tail))
    return out


def path_filter(under: str, glob: str, *, recursive: bool = True) -> Callable[[str], bool]:
    """A predicate on workspace-relative paths: below ``under`` and matching ``glob``.

    A glob without ``/`` matches the base name (``*.py``); with ``/`` it matches the
    path relative to ``under`` or to the root (``src/*.py``, ``**/test_*.py``).
    """
    globs = [g for g in expand_braces(glob or "*") if g]
    by_path = any("/" in g for g in globs)
    translated = []
    for g in globs:
        translated.append(fnmatch.translate(g))
        if "**/" in g:
            translated.append(fnmatch.translate(g.replace("**/", "")))  # ** can be no dirs
    rx = re.compile("|".join(translated)) if translated else re.compile(".*")
    match_all = globs in (["*"], [])
    prefix = under.strip("/") + "/" if under.strip("/") else ""

    def keep(path: str) -> bool:
        if prefix and not path.startswith(prefix):
            return False
        rest = path[len(prefix) :]
        if not recursive and "/" in rest:
            return False
        if match_all:
            return True
        name = rest.rpartition("/")[2]
        if rx.match(name) is not None:
            return True
        return by_path and (rx.match(rest) is not None or rx.match(path) is not None)

    return keep


def select(paths: Sequence[str], keep: Callable[[str], bool]) -> list[str]:
    return [p for p in paths if keep(p)]
