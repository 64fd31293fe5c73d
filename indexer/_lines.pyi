# The C extension's interface (indexer/_lines.c); indexer/lines.py holds the reference.
from collections.abc import Sequence
from typing import TypeVar

_T = TypeVar("_T", bound=tuple[object, ...])

def find(hay: bytes, needle: bytes, start: int, /) -> int: ...
def literal_spans(
    hay: bytes, needle: bytes, first: int, limit: int, /
) -> list[tuple[int, int]]: ...
def spans_from_ends(data: bytes, ends: Sequence[int], limit: int, /) -> list[tuple[int, int]]: ...
def numbered_lines(
    line_type: type[_T],
    path: str,
    data: bytes,
    spans: Sequence[tuple[int, int]],
    max_chars: int,
    /,
) -> tuple[_T, ...]: ...
def literal_lines(
    line_type: type[_T],
    path: str,
    data: bytes,
    hay: bytes,
    needle: bytes,
    first: int,
    limit: int,
    max_chars: int,
    /,
) -> tuple[_T, ...]: ...
