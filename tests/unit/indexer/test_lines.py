"""The native per-hit work (``indexer._lines``) equals its Python reference in
``indexer.lines``, on fixed edge cases and on generated text; bad input is an
exception, never a crash; the search gives the same results with and without it."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.indexer import lines
from agentls.indexer.linenumbers import BLOCK, MIN_SIZE
from agentls.indexer.lines import (
    MAX_LINE_CHARS,
    Line,
    py_literal_lines,
    py_literal_spans,
    py_numbered_lines,
    py_spans_from_ends,
)
from agentls.indexer.search import SearchResult, compile_query, search


def test_the_native_extension_is_built() -> None:
    # Built by `pip install -e .` (setup.py), optional so that a machine without a C
    # compiler still installs; here, where there is one, it must have been built.
    assert lines.NATIVE is not None, (
        "indexer._lines was not built: `pip install -e .` needs a C compiler and the "
        "Python headers (the search then runs in Python, several times slower)"
    )


native = pytest.mark.skipif(lines.NATIVE is None, reason="indexer._lines not built")

# Pieces that exercise the edges: empty lines, CRLF, a lone CR, invalid and cut UTF-8,
# multi-byte characters, and lines longer than what is shown.
_PIECES = [
    b"a",
    b"ab",
    b"b",
    b" ",
    b"\n",
    b"\n",
    b"\r",
    b"\r\n",
    b"\xff",
    b"\xe2\x82",
    "é€😀".encode(),
    b"A",
    b"x" * (4 * MAX_LINE_CHARS + 7),
    "é".encode() * (MAX_LINE_CHARS + 3),
]
_DATA = st.lists(st.sampled_from(_PIECES), max_size=40).map(b"".join)
_NEEDLES = st.sampled_from([b"a", b"ab", b"b ", b"\xe2\x82", b"\r", b"\xff", b"x" * 5, b"zz"])


def _native() -> Any:
    assert lines.NATIVE is not None
    return lines.NATIVE


@native
@settings(max_examples=400, deadline=None)
@given(data=_DATA, needle=_NEEDLES, first=st.integers(-2, 60), limit=st.integers(0, 30))
def test_literal_spans_and_lines_equal_python(
    data: bytes, needle: bytes, first: int, limit: int
) -> None:
    hay = data.lower()  # as a case-insensitive search hands it over
    impl = _native()
    for start in (0, max(first, 0)):
        assert impl.find(hay, needle, start) == hay.find(needle, start)
        assert impl.find(hay, b"", start) == hay.find(b"", start)
    assert impl.literal_spans(hay, needle, first, limit) == py_literal_spans(
        hay, needle, first, limit
    )
    got = impl.literal_lines(Line, "p", data, hay, needle, first, limit, MAX_LINE_CHARS)
    assert got == py_literal_lines("p", data, hay, needle, first, limit)
    assert all(type(line) is Line for line in got)


@native
@settings(max_examples=400, deadline=None)
@given(data=_DATA, picks=st.lists(st.integers(1, 10**6), max_size=20), limit=st.integers(1, 30))
def test_spans_from_ends_and_numbered_lines_equal_python(
    data: bytes, picks: list[int], limit: int
) -> None:
    # Valid match ends: in 1..len, never just after a newline (a match holds none).
    ends = sorted({1 + p % len(data) for p in picks} if data else set())
    ends = [e for e in ends if data[e - 1 : e] != b"\n"]
    impl = _native()
    spans = impl.spans_from_ends(data, ends, limit)
    assert spans == py_spans_from_ends(data, ends, limit)
    got = impl.numbered_lines(Line, "p", data, spans, MAX_LINE_CHARS)
    assert got == py_numbered_lines("p", data, spans)


@native
def test_shown_text_cut_stripped_and_replaced() -> None:
    data = b"x" * 400 + b"\r\n" + b"a\xffb\r\r\n" + "é".encode() * 301 + b"\n\xe2\x82\r"
    spans = py_spans_from_ends(data, [1, 403, 409, len(data)], 9)
    texts = [line.text for line in _native().numbered_lines(Line, "f", data, spans, 300)]
    assert texts == ["x" * 300 + "…", "a\ufffdb", "é" * 300 + "…", "\ufffd"]
    assert texts == [line.text for line in py_numbered_lines("f", data, spans)]
    assert [line.number for line in py_numbered_lines("f", data, spans)] == [1, 2, 3, 4]


@native
def test_line_numbers_far_apart_in_a_large_file() -> None:
    # Python numbers the far hits from the memoised checkpoints; C counts every newline.
    data = b"".join(b"line %d\n" % i for i in range(3 * MIN_SIZE // 7)) + b"needle\n"
    data = data[:BLOCK] + b"needle\n" + data[BLOCK:]
    got = _native().literal_lines(Line, "big", data, data, b"needle", 0, 10, MAX_LINE_CHARS)
    assert got == py_literal_lines("big", data, data, b"needle", 0, 10)
    assert [line.number for line in got] == [
        data.count(b"\n", 0, data.find(b"needle")) + 1,
        data.count(b"\n"),
    ]


@native
@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda n: n.find(b"abc", b"c", -1), ValueError),
        (lambda n: n.literal_spans(b"abc", b"", 0, 5), ValueError),
        (lambda n: n.literal_spans(b"a\nb", b"\n", 0, 5), ValueError),
        (lambda n: n.literal_lines(Line, "p", b"ab", b"abc", b"a", 0, 5, 300), ValueError),
        (lambda n: n.spans_from_ends(b"abc", [0], 5), ValueError),
        (lambda n: n.spans_from_ends(b"abc", [4], 5), ValueError),
        (lambda n: n.spans_from_ends(b"abc", ["1"], 5), TypeError),
        (lambda n: n.numbered_lines(Line, "p", b"a\nb", [(2, 3), (0, 1)], 300), ValueError),
        (lambda n: n.numbered_lines(Line, "p", b"a\nb", [(0, 9)], 300), ValueError),
        (lambda n: n.numbered_lines(Line, "p", b"a\nb", [(0,)], 300), TypeError),
        (lambda n: n.numbered_lines(list, "p", b"a\nb", [(0, 1)], 300), TypeError),
        (lambda n: n.numbered_lines(Line, "p", b"a\nb", [(0, 1)], -1), ValueError),
        (lambda n: n.numbered_lines(Line, b"p", b"a\nb", [(0, 1)], 300), TypeError),
    ],
)
def test_bad_input_raises(call: Callable[[Any], object], error: type[Exception]) -> None:
    with pytest.raises(error):
        call(_native())


@native
def test_lines_are_left_out_of_the_cyclic_collector() -> None:
    # Why: with 200k lines tracked, collections during a search cost more than the search.
    data = b"a\nab\nb\n"
    for got in (
        _native().literal_lines(Line, "p", data, data, b"a", 0, 9, 300),
        _native().numbered_lines(Line, "p", data, [(0, 1), (2, 4)], 300),
    ):
        assert len(got) == 2 and not gc.is_tracked(got)
        assert not any(gc.is_tracked(line) for line in got)


FILES: dict[str, bytes] = {
    "a.py": b"def f():\n    return 1\n\n\ndef g():\n    return 2  # Return\n",
    "b.js": b"x" * 2000 + b"return" + b"\r\n" + b"return;" * 50 + b"\n",
    "c.txt": "été return\n\xff return\n".encode("utf-8", "surrogateescape"),
    "d.txt": b"",
    "e.txt": b"no final newline return",
}


def _searched(pattern: str, **kw: object) -> SearchResult:
    query = compile_query(pattern, **kw)  # type: ignore[arg-type]
    paths = sorted(FILES)
    return search(paths, [FILES[p] for p in paths], query, FILES.get)


@native
@pytest.mark.parametrize(
    ("pattern", "literal", "case_sensitive"),
    [
        ("return", True, True),
        ("return", True, False),
        (r"\w+ return", False, True),
        ("é", True, True),
    ],
)
@pytest.mark.parametrize("max_results", [1, 3, 100])
@pytest.mark.parametrize("context_lines", [0, 1])
@pytest.mark.parametrize("accelerate", [True, False])
def test_search_equals_the_python_reference(
    monkeypatch: pytest.MonkeyPatch,
    pattern: str,
    literal: bool,
    case_sensitive: bool,
    max_results: int,
    context_lines: int,
    accelerate: bool,
) -> None:
    kw = {
        "literal": literal,
        "case_sensitive": case_sensitive,
        "max_results": max_results,
        "context_lines": context_lines,
        "accelerate": accelerate,
    }
    fast = _searched(pattern, **kw)
    monkeypatch.setattr(lines, "NATIVE", None)
    reference = _searched(pattern, **kw)
    assert fast.matches > 0
    assert (fast.groups, fast.matches, fast.truncated, fast.files_searched) == (
        reference.groups,
        reference.matches,
        reference.truncated,
        reference.files_searched,
    )
    assert fast.render(context_lines, max_results) == reference.render(context_lines, max_results)
