"""The lines a search returns: where each matching line starts and ends, its number
and the text shown; and the literal scan that finds them.

This is the per-hit work of a search, and with many hits it is most of it: a common
word matches ~200k lines of a large tree, and in Python each line costs ~2 µs (its
bounds, the newlines before it, its decoded text, a tuple). ``indexer._lines``, a
small C extension built with the package (``setup.py``), does the same work in
native code. The Python functions here are its reference and the fallback where it
was not built (no C compiler): tests check that both give the same results.

The native lines and each file's tuple of them are not tracked by the cyclic garbage
collector (they cannot be part of a cycle); tracked, the collections during a search
that returns 200k lines cost as much as the search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NamedTuple

from agentls.indexer.linenumbers import BLOCK, LINE_NUMBERS

MAX_LINE_CHARS = 300

Span = tuple[int, int]


class Line(NamedTuple):
    """One printed line (a tuple: cheap to make by the ten thousand)."""

    path: str
    number: int
    text: str
    is_match: bool


def _load_native() -> ModuleType | None:
    try:
        from agentls.indexer import _lines
    except ImportError:  # not built here: the Python reference below serves
        return None
    return _lines


NATIVE = _load_native()


def line_text(data: bytes, start: int, end: int) -> str:
    """The text shown for ``data[start:end]``: at most MAX_LINE_CHARS characters."""
    # A minified line can be megabytes: decode only what can be shown (UTF-8 takes at
    # most 4 bytes a character, so this prefix still yields more than the limit).
    end = min(end, start + 4 * MAX_LINE_CHARS + 4)
    text = data[start:end].decode("utf-8", "replace").rstrip("\r")
    if len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + "…"
    return text


def py_literal_spans(hay: bytes, needle: bytes, first: int, limit: int) -> list[Span]:
    """(start, end) of up to ``limit`` lines holding ``needle`` (no newline in it),
    searched from ``first``."""
    out: list[Span] = []
    find, rfind, add = hay.find, hay.rfind, out.append
    size = len(hay)
    at = find(needle, max(first, 0))
    while at >= 0 and limit > 0:
        end = find(b"\n", at)
        if end < 0:
            end = size
        add((rfind(b"\n", 0, at) + 1, end))
        limit -= 1
        at = find(needle, end + 1)
    return out


def py_spans_from_ends(data: bytes, ends: Sequence[int], limit: int) -> list[Span]:
    """(start, end) of up to ``limit`` lines in which a match ends. ``ends`` ascend,
    each in 1..len(data): a match is never empty and never holds a newline, so its
    last byte (``end - 1``) is on its line."""
    out: list[Span] = []
    size = len(data)
    line_end = -1
    find, rfind = data.find, data.rfind
    for end in ends:
        if end <= line_end:
            continue  # another match on a line already taken
        last = end - 1
        line_end = find(b"\n", last)
        if line_end < 0:
            line_end = size
        out.append((rfind(b"\n", 0, last) + 1, line_end))
        if len(out) >= limit:
            break
    return out


def line_number(data: bytes, number: int, counted: int, start: int) -> int:
    """The number of the line at ``start``, knowing the line at ``counted`` is ``number``."""
    if start - counted > BLOCK:  # far ahead: from the memoised checkpoints
        return LINE_NUMBERS.line_of(data, start)
    return number + data.count(b"\n", counted, start)


def py_numbered_lines(path: str, data: bytes, spans: Sequence[Span]) -> tuple[Line, ...]:
    """A matching ``Line`` for each span (ascending), numbered from 1."""
    lines: list[Line] = []
    number, counted = 1, 0
    for start, end in spans:
        number = line_number(data, number, counted, start)
        counted = start
        lines.append(Line(path, number, line_text(data, start, end), True))
    return tuple(lines)


def py_literal_lines(
    path: str, data: bytes, hay: bytes, needle: bytes, first: int, limit: int
) -> tuple[Line, ...]:
    """The ``Line`` of each of the first ``limit`` lines holding ``needle`` (searched in
    ``hay``: ``data`` itself, or lower-cased for a case-insensitive search)."""
    return py_numbered_lines(path, data, py_literal_spans(hay, needle, first, limit))


def finder() -> Callable[[bytes, bytes, int], int]:
    """``find(hay, needle, start)``, equal to ``hay.find(needle, start)`` for start >= 0:
    glibc's ``memmem`` where the extension is built, 2-4× faster than ``bytes.find`` on
    source text (a search runs it over every file it does not reject by name)."""
    if NATIVE is None:
        return bytes.find
    native_find: Callable[[bytes, bytes, int], int] = NATIVE.find
    return native_find


def literal_spans(hay: bytes, needle: bytes, first: int, limit: int) -> list[Span]:
    if NATIVE is None:
        return py_literal_spans(hay, needle, first, limit)
    spans: list[Span] = NATIVE.literal_spans(hay, needle, first, limit)
    return spans


def spans_from_ends(data: bytes, ends: Sequence[int], limit: int) -> list[Span]:
    if NATIVE is None:
        return py_spans_from_ends(data, ends, limit)
    spans: list[Span] = NATIVE.spans_from_ends(data, ends, limit)
    return spans


def numbered_lines(path: str, data: bytes, spans: Sequence[Span]) -> tuple[Line, ...]:
    if NATIVE is None:
        return py_numbered_lines(path, data, spans)
    lines: tuple[Line, ...] = NATIVE.numbered_lines(Line, path, data, spans, MAX_LINE_CHARS)
    return lines


def literal_lines(
    path: str, data: bytes, hay: bytes, needle: bytes, first: int, limit: int
) -> tuple[Line, ...]:
    if NATIVE is None:
        return py_literal_lines(path, data, hay, needle, first, limit)
    lines: tuple[Line, ...] = NATIVE.literal_lines(
        Line, path, data, hay, needle, first, limit, MAX_LINE_CHARS
    )
    return lines
