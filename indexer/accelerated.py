"""Find the matching lines with Hyperscan, many files per call.

Python's ``re`` and ``bytes.find`` scan about 1 GB/s on one core and run a regex
such as ``\\w+Error\\(`` from every position of a long minified line. Hyperscan
(SIMD automata, the engine behind several IDS and grep tools) scans several GB/s
and takes a whole list of buffers in one call ("vectored" mode), so one call
covers thousands of held files without a Python loop over them, and it releases
the GIL while it scans.

Exactness: the expression comes from ``indexer.hyperscan_pattern`` (equivalent to
the Python regex, or not built at all). Files are separated by a ``\\n`` in the
vector, and only line-local patterns are accelerated, so no match spans two files
and ``^``/``$``/``\\b`` see a file's edges as a line's edges, as ``re`` does. A
line holds a match exactly when Hyperscan reports a match ending in it, so only end
offsets are used (tracking match starts would double the scan time) and lines are
not re-checked in Python. The pure-Python matcher stays the reference: tests compare
the two on fixed and on generated patterns.

``hyperscan`` is an optional speed-up: without it (or on a CPU it does not
support) ``matcher_for`` returns None and the search uses Python alone.
"""

from __future__ import annotations

import functools
import importlib
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from agentls.indexer.hyperscan_pattern import literal_expression, translate
from agentls.indexer.lines import Span, spans_from_ends

_SEPARATOR = b"\n"
#: Reports collected per scan before it is cut short and resumed (bounds memory).
MAX_REPORTS_PER_SCAN = 65_536

#: (running totals of sizes, index of the first buffer in them, total before it)
Running = tuple[Sequence[int], int, int]


def _load_hyperscan() -> Any:
    try:
        module = importlib.import_module("hyperscan")
        module.Database(mode=module.HS_MODE_VECTORED)  # raises on an unsupported CPU
    except Exception:
        return None
    return module


_hs: Any = None
_hs_loaded = False


def hyperscan_module() -> Any:
    """The ``hyperscan`` module, or None when it is missing or unusable here."""
    global _hs, _hs_loaded
    if not _hs_loaded:
        _hs = _load_hyperscan()
        _hs_loaded = True
    return _hs


@dataclass(frozen=True)
class Matcher:
    """A compiled Hyperscan database for one query; when not ``exact`` it finds a
    superset of the matching lines, each to be checked with the query's regex."""

    database: Any
    exact: bool = True

    def scan(
        self,
        buffers: Sequence[bytes],
        running: Running | None = None,
        max_reports: int | None = None,
    ) -> tuple[dict[int, list[int]], int]:
        """End offsets of the matches in each buffer that holds one, by buffer index,
        for ``buffers[:done]``; ``done`` < len when the scan was cut short after
        ``max_reports`` reports (default and most MAX_REPORTS_PER_SCAN; resume from
        ``done``).

        ``running`` = (totals, first, base) with ``totals[first + i] - base`` the size
        of ``buffers[: i + 1]``, when the caller has it; computed otherwise.
        """
        if not buffers:
            return {}, 0
        hs = hyperscan_module()
        vector = [_SEPARATOR] * (2 * len(buffers))
        vector[0::2] = buffers
        reports: list[int] = []
        add = reports.append
        cap = min(MAX_REPORTS_PER_SCAN, max_reports or MAX_REPORTS_PER_SCAN)

        def on_match(_id: int, _start: int, end: int, _flags: int, _ctx: object) -> bool:
            add(end)
            return len(reports) >= cap

        cut = False
        try:
            self.database.scan(vector, on_match, scratch=hs.Scratch(self.database))
        except hs.ScanTerminated:
            cut = True
        if not reports:
            return {}, len(buffers)
        totals, first, base = running or (list(accumulate(map(len, buffers))), 0, 0)

        def vector_end(i: int) -> int:  # where buffer i ends in the vector (separators between)
            return totals[first + i] - base + i

        # Matches are few next to bytes: find each one's buffer by bisection over the
        # buffers' ends rather than building an offset table of the whole vector.
        positions = range(len(buffers))
        reports.sort()
        per_file: dict[int, list[int]] = {}
        limit = -1  # end of the current buffer in the vector
        found: list[int] = []
        for end in reports:
            if end > limit:
                index = bisect_left(positions, end, key=vector_end)
                limit = vector_end(index)
                start = limit - len(buffers[index])
                found = per_file[index] = []
            found.append(end - start)
        done = len(buffers)
        if cut:  # the file of the last report may have more: scan it again
            done = bisect_left(positions, reports[-1], key=vector_end)
            per_file = {i: found for i, found in per_file.items() if i < done}
        return per_file, done


@functools.lru_cache(maxsize=64)
def _compile(expression: bytes) -> Any:
    # Cached like ``re``'s compiled patterns: compiling takes 0.1-1.5 ms, as long as
    # a search that stops at its first results, and a model often repeats a search.
    # A database is read-only once compiled; each scan has its own scratch space, so
    # one database serves concurrent searches.
    hs = hyperscan_module()
    database = hs.Database(mode=hs.HS_MODE_VECTORED)
    database.compile(expressions=[expression], ids=[0], elements=1, flags=[hs.HS_FLAG_MULTILINE])
    return database


def matcher_for(
    regex: re.Pattern[bytes], needle: bytes | None, fold: bool, local: bool
) -> Matcher | None:
    """A Hyperscan matcher for a query, or None when it cannot be exact (or there is no
    Hyperscan here): then the caller searches in Python alone."""
    if hyperscan_module() is None:
        return None
    try:
        if needle is not None:
            return Matcher(_compile(literal_expression(needle, fold)))
        if not local:
            return None
        translation = translate(regex.pattern, regex.flags)
        if translation is None:
            return None
        return Matcher(_compile(translation.expression), translation.exact)
    except Exception:  # hyperscan refuses (empty match, too large...): Python alone
        return None


def lines_from_ends(
    data: bytes, ends: list[int], limit: int, check: re.Pattern[bytes] | None = None
) -> list[Span]:
    """(line start, line end) of up to ``limit`` lines in which a match ends, in order;
    with ``check``, only the lines where it also matches.

    ``ends`` are match end offsets in ``data``, ascending. A match is never empty and
    never holds a newline, so its last byte (``end - 1``) is on its line.
    """
    if check is None:
        return spans_from_ends(data, ends, limit)
    out: list[Span] = []
    for start, end in spans_from_ends(data, ends, len(ends)):
        if check.search(data, start, end) is not None:
            out.append((start, end))
            if len(out) >= limit:
                break
    return out
