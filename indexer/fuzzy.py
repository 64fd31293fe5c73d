"""Fuzzy matching of what a user types against names and paths, for pickers.

A candidate matches when the query's characters appear in it in order (case does not
matter). Better matches score higher: the query whole (``greet`` in ``src/greeting.py``),
at the start of the name or of a word, then the characters closer together, then the
shorter candidate. Only the best ``limit`` are kept, so a workspace of 50,000 files costs
one pass over their paths and no sort of them all.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def score(query: str, candidate: str, *, tail_from: int = 0) -> float | None:
    """How well ``candidate`` matches ``query`` (higher is better); None when it does not.
    ``tail_from``: where the part that matters most starts (a path's file name): a match
    there counts more."""
    if not query:
        return 0.0
    q, c = query.lower(), candidate.lower()
    at = c.rfind(q)
    if at >= 0:
        value = 1000.0
        if at >= tail_from:
            value += 300
        if at == tail_from or _starts_word(candidate, at):
            value += 200
        return value - len(candidate) * 0.1
    latest = _spread(q, c)
    if latest is None:
        return None
    return max(
        _spread_score(positions, candidate, tail_from, len(q))
        for positions in (latest, _by_word_starts(q, candidate))
        if positions is not None
    )


def _spread_score(positions: list[int], candidate: str, tail_from: int, length: int) -> float:
    gaps = positions[-1] - positions[0] - length + 1
    starts = sum(1 for p in positions if _starts_word(candidate, p))
    in_tail = sum(1 for p in positions if p >= tail_from)
    return 500.0 + 20 * starts + 10 * in_tail - 3 * gaps - len(candidate) * 0.1


def _starts_word(text: str, at: int) -> bool:
    if at == 0:
        return True
    before, here = text[at - 1], text[at]
    return before in "/_.- " or (before.islower() and here.isupper())


def _spread(q: str, c: str) -> list[int] | None:
    """Where each of ``q``'s characters is found in ``c``, in order, preferring the
    latest start (a match in the file name rather than across folders)."""
    positions: list[int] = []
    end = len(c)
    for char in reversed(q):
        end = c.rfind(char, 0, end)
        if end < 0:
            return None
        positions.append(end)
    positions.reverse()
    return positions


def _by_word_starts(q: str, candidate: str) -> list[int] | None:
    """Each of ``q``'s characters at the next start of a word where there is one (``gt``
    in ``greet_total``: g, then the t of total), else at its next occurrence."""
    c = candidate.lower()
    positions: list[int] = []
    at = 0
    for char in q:
        anywhere = c.find(char, at)
        if anywhere < 0:
            return None
        here = anywhere
        while here >= 0 and not _starts_word(candidate, here):
            here = c.find(char, here + 1)
        chosen = here if here >= 0 else anywhere
        positions.append(chosen)
        at = chosen + 1
    return positions


def best(
    query: str,
    candidates: Iterable[T],
    text: Callable[[T], str],
    limit: int,
    *,
    tail_from: Callable[[str], int] | None = None,
) -> list[T]:
    """The ``limit`` candidates that match ``query`` best, best first; for an empty query
    the first ``limit``, in their order."""
    if not query:
        out: list[T] = []
        for candidate in candidates:
            if len(out) >= limit:
                break
            out.append(candidate)
        return out
    # The regular expression says "in order" at C speed, so only the matches are scored;
    # each `[^c]*c` stops at the first c, so a long query never backtracks.
    in_order = re.compile(
        "".join(f"[^{re.escape(char)}]*{re.escape(char)}" for char in query), re.IGNORECASE
    )
    scored: list[tuple[float, int, T]] = []
    for n, candidate in enumerate(candidates):
        value = text(candidate)
        if in_order.match(value) is None:
            continue
        found = score(query, value, tail_from=tail_from(value) if tail_from else 0)
        if found is None:
            continue
        entry = (found, -n, candidate)
        if len(scored) < limit:
            heapq.heappush(scored, entry)
        elif entry[:2] > scored[0][:2]:
            heapq.heapreplace(scored, entry)
    return [candidate for _, _, candidate in sorted(scored, key=lambda e: e[:2], reverse=True)]


def file_name_start(path: str) -> int:
    """Where a path's file name starts."""
    return path.rfind("/") + 1
