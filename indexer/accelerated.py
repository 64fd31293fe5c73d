"""Find candidate lines with Hyperscan, many files per call, then confirm them in Python.

Python's ``re`` and ``bytes.find`` scan about 1 GB/s on one core and run a regex
such as ``\\w+Error\\(`` from every position of a long minified line. Hyperscan
(SIMD automata, the engine behind several IDS and grep tools) scans several GB/s
and takes a whole list of buffers in one call ("vectored" mode), so one call
covers thousands of held files without a Python loop over them, and it releases
the GIL while it scans.

Exactness: the expression comes from ``indexer.hyperscan_pattern`` (equivalent to
the Python regex, or not built at all). Files are separated by a ``\\n`` in the
vector, and only line-local patterns are accelerated, so no match spans two files
and ``^``/``$``/``\\b`` see a file's edges as a line's edges, as ``re`` does. Each
candidate line is still confirmed with the Python regex, starting at the leftmost
match start Hyperscan reports; the pure-Python matcher remains the reference.

``hyperscan`` is an optional speed-up: without it (or on a CPU it does not
support) ``matcher_for`` returns None and the search uses Python alone.
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from indexer.hyperscan_pattern import literal_expression, translate

_SEPARATOR = b"\n"
#: Reports collected per scan before it is cut short and resumed (bounds memory).
MAX_REPORTS_PER_SCAN = 65_536

Span = tuple[int, int]


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
    """A compiled Hyperscan database for one query."""

    database: Any
    #: Length of the needle for a plain literal (its start is ``end - length``);
    #: None for a regex, whose start Hyperscan reports (SOM_LEFTMOST).
    literal_length: int | None

    def scan(self, buffers: list[bytes]) -> tuple[dict[int, list[Span]], int]:
        """Match spans of the buffers that hold a match, by buffer index, for
        ``buffers[:done]``; ``done`` < len when the scan was cut short after
        MAX_REPORTS_PER_SCAN reports (resume from ``done``)."""
        hs = hyperscan_module()
        vector = [_SEPARATOR] * (2 * len(buffers))
        vector[0::2] = buffers
        reports: list[Span] = []
        add = reports.append

        def on_match(_id: int, start: int, end: int, _flags: int, _ctx: object) -> bool:
            add((start, end))
            return len(reports) >= MAX_REPORTS_PER_SCAN

        cut = False
        try:
            self.database.scan(vector, on_match, scratch=hs.Scratch(self.database))
        except hs.ScanTerminated:
            cut = True
        per_file: dict[int, list[Span]] = {}
        if reports:
            reports.sort(key=lambda span: span[1])
            # End offset of every vector entry; buffer i is entry 2i (a separator follows).
            ends = list(accumulate(map(len, vector)))
            length = self.literal_length
            for start, end in reports:
                index = bisect_left(ends, end) // 2
                base = ends[2 * index] - len(buffers[index])
                if length is not None:
                    start = end - length
                per_file.setdefault(index, []).append((max(start, base) - base, end - base))
        done = len(buffers)
        if cut:
            done = bisect_left(ends, reports[-1][1]) // 2  # that file may have more: again
            per_file = {i: spans for i, spans in per_file.items() if i < done}
        return per_file, done


def _compile(expression: bytes, som: bool) -> Any:
    hs = hyperscan_module()
    flags = hs.HS_FLAG_MULTILINE | (hs.HS_FLAG_SOM_LEFTMOST if som else 0)
    database = hs.Database(mode=hs.HS_MODE_VECTORED)
    database.compile(expressions=[expression], ids=[0], elements=1, flags=[flags])
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
            return Matcher(_compile(literal_expression(needle, fold), som=False), len(needle))
        if not local:
            return None
        expression = translate(regex.pattern, regex.flags)
        if expression is None:
            return None
        return Matcher(_compile(expression, som=True), None)
    except Exception:  # hyperscan refuses (empty match, too large...): Python alone
        return None


def lines_from_spans(
    data: bytes,
    spans: list[Span],
    confirm: Callable[[bytes, int, int], bool] | None,
    limit: int,
) -> list[Span]:
    """(line start, line end) of up to ``limit`` lines holding a match, in order.

    ``spans`` are the match spans Hyperscan reported in ``data`` (ordered by end);
    ``confirm(data, start, line_end)`` re-checks a line with Python from the
    leftmost reported start (None for a plain literal, which needs no check).
    """
    out: list[Span] = []
    size = len(data)
    line_end = -1
    pending: tuple[int, int, int] | None = None  # (line start, line end, leftmost start)
    for start, end in spans:
        if start <= line_end and pending is not None:
            if start < pending[2]:
                pending = (pending[0], pending[1], start)
            continue
        if pending is not None and _accept(data, pending, confirm):
            out.append((pending[0], pending[1]))
            if len(out) >= limit:
                return out
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", max(start, end - 1))
        if line_end < 0:
            line_end = size
        pending = (line_start, line_end, start)
    if pending is not None and _accept(data, pending, confirm):
        out.append((pending[0], pending[1]))
    return out


def _accept(
    data: bytes, pending: tuple[int, int, int], confirm: Callable[[bytes, int, int], bool] | None
) -> bool:
    if confirm is None:
        return True
    line_start, line_end, leftmost = pending
    # Hyperscan and Python agree on these constructs; the re-check from the line start
    # only runs if they ever did not, so a disagreement cannot produce a wrong line.
    return confirm(data, leftmost, line_end) or confirm(data, line_start, line_end)
