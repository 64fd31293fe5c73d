"""Hyperscan-accelerated search gives exactly what the pure-Python matcher gives.

The pure-Python path (``compile_query(..., accelerate=False)``) is the reference;
every comparison covers the lines, line numbers, context groups, truncation and
the files-searched count.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.indexer import accelerated, search
from agentls.indexer.hyperscan_pattern import translate
from agentls.indexer.search import SearchResult, compile_query

pytest.importorskip("hyperscan")

FILES: dict[str, bytes] = {
    "a.py": b"raise ValueError('x')\n# TODO: FIXME later\n  def go():\nXXX aab\n",
    "b.py": b"no hits here\nFixMe\nKeyError(\nab",  # no final newline
    "c.txt": b"",
    "d.txt": b"todo\r\nTODO\r\nToDo done\r\n",
    "e.js": b"x" * 5000 + b"ValueError(" + b"y" * 5000 + b"\nreturn a.b\n",
    "f.txt": b"\n\n\nab\n",
    "g.txt": b"a\xffb \xc3\xa9t\xc3\xa9 Error(\n",
}


def _pair(pattern: str, **kw: object) -> tuple[SearchResult, SearchResult, bool]:
    fast = compile_query(pattern, **kw)  # type: ignore[arg-type]
    slow = compile_query(pattern, accelerate=False, **kw)  # type: ignore[arg-type]
    paths = sorted(FILES)
    helds = [FILES[p] for p in paths]
    read = FILES.get
    return (
        search.search(paths, helds, fast, read),
        search.search(paths, helds, slow, read),
        fast.matcher is not None,
    )


def _same(a: SearchResult, b: SearchResult) -> bool:
    return (a.groups, a.matches, a.truncated, a.files_searched, a.files_matched) == (
        b.groups,
        b.matches,
        b.truncated,
        b.files_searched,
        b.files_matched,
    )


@pytest.mark.parametrize(
    ("pattern", "literal", "case_sensitive"),
    [
        ("Error(", True, True),
        ("todo", True, False),
        (r"\w+Error\(", False, True),
        ("(?i)todo", False, True),
        ("TODO|FIXME|XXX", False, True),
        (r"^ab$", False, True),
        (r"\bab\b", False, True),
        (r"a\B.", False, True),
        (r"x{,2}ValueError", False, True),
        (r"[^\W\d]b", False, False),
        ("a.b", False, True),
        (r"\xff", False, True),
        ("été", False, True),
        (r"do\r$", False, True),
    ],
)
@pytest.mark.parametrize("max_results", [1, 2, 100])
@pytest.mark.parametrize("context_lines", [0, 1])
def test_accelerated_equals_python(
    pattern: str, literal: bool, case_sensitive: bool, max_results: int, context_lines: int
) -> None:
    fast, slow, accelerated_ = _pair(
        pattern,
        literal=literal,
        case_sensitive=case_sensitive,
        max_results=max_results,
        context_lines=context_lines,
    )
    assert accelerated_, "this pattern should be accelerated"
    assert _same(fast, slow)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a)\1",  # back-reference
        r"(?<=a)b",  # lookbehind
        r"a(?=b)",  # lookahead
        r"\Aab",
        r"ab\Z",
        r"a++b",  # possessive
        r"(?>a+)b",  # atomic
        r"(?i:a)b",  # scoped flags
        r"(?s)a.b",  # dotall
        r"a{2000}",  # huge repeat
        r"a*",  # matches the empty string: Hyperscan refuses it
        r"a\s+b",  # can span lines: not line-local
    ],
)
def test_unsafe_patterns_stay_in_python(pattern: str) -> None:
    fast, slow, accelerated_ = _pair(pattern, max_results=100)
    assert not accelerated_
    assert _same(fast, slow)


def test_translation_uses_pythons_byte_sets() -> None:
    # \s in Python bytes is [\t\n\v\f\r ], \w ASCII, case folding ASCII only.
    assert translate(rb"\s", re.MULTILINE) == (rb"[\x09-\x0d\x20]", True)
    assert translate(rb"k", re.MULTILINE | re.IGNORECASE) == (rb"[\x4b\x6b]", True)
    assert translate(rb"x{,3}y", re.MULTILINE) == (rb"(?:\x78){0,3}\x79", True)
    assert translate(rb"^a\b", re.MULTILINE) == (rb"^\x61\b", True)
    assert translate(rb"x{,3}", re.MULTILINE) is None  # can match the empty string
    assert translate(rb"ab", 0) is None  # MULTILINE is required for ^ and $


def test_scan_cut_short_resumes_where_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accelerated, "MAX_REPORTS_PER_SCAN", 2)
    monkeypatch.setattr(search, "DENSE_REPORTS_PER_MIB", 10**9)  # stay in Hyperscan
    for pattern in ("a", "ab", "o"):
        fast, slow, accelerated_ = _pair(pattern, literal=True, max_results=1000)
        assert accelerated_
        assert _same(fast, slow)
        assert fast.matches > 2


def test_dense_hits_hand_over_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "DENSE_REPORTS_PER_MIB", 0)
    monkeypatch.setattr(search, "FIRST_BATCH_BYTES", 16)
    handed_over: list[bool] = []
    python_search = search._search_python

    def spy(result: SearchResult, *args: Any) -> None:
        handed_over.append(True)
        python_search(result, *args)

    monkeypatch.setattr(search, "_search_python", spy)
    fast = compile_query("o", literal=True, max_results=1000)
    assert fast.matcher is not None
    paths = sorted(FILES)
    result = search.search(paths, [FILES[p] for p in paths], fast, FILES.get)
    assert handed_over == [True]  # the accelerated search gave the rest to Python
    monkeypatch.setattr(search, "_search_python", python_search)
    _, slow, _ = _pair("o", literal=True, max_results=1000)
    assert _same(result, slow)


def test_files_read_from_disk_and_unreadable_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FIRST_BATCH_BYTES", 64)
    paths = sorted([*FILES, "gone.txt"])
    helds: list[bytes | None] = [None] * len(paths)
    for pattern in ("Error(", "ab"):
        fast = compile_query(pattern, literal=True, max_results=100)
        slow = compile_query(pattern, literal=True, max_results=100, accelerate=False)
        assert fast.matcher is not None
        a = search.search(paths, helds, fast, FILES.get)
        b = search.search(paths, helds, slow, FILES.get)
        assert _same(a, b)
        assert a.files_searched == len(FILES)


def test_some_files_held_and_some_read_from_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    # Over the memory cap some files are not held (None): the batches that hold one
    # read from disk, the others are slices of the held text; results are the same.
    monkeypatch.setattr(search, "FIRST_BATCH_BYTES", 64)
    paths = sorted([*FILES, "gone.txt"])
    for every in (2, 3, 5):
        helds = [None if i % every == 0 else FILES.get(p) for i, p in enumerate(paths)]
        for pattern in ("Error(", "ab", "o"):
            fast = compile_query(pattern, literal=True, max_results=100)
            slow = compile_query(pattern, literal=True, max_results=100, accelerate=False)
            a = search.search(paths, helds, fast, FILES.get)
            b = search.search(paths, helds, slow, FILES.get)
            assert _same(a, b), (every, pattern)


def test_without_hyperscan_the_search_is_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accelerated, "hyperscan_module", lambda: None)
    assert compile_query("Error(", literal=True).matcher is None
    assert compile_query(r"\w+Error\(").matcher is None


_ATOMS = st.sampled_from(
    [
        "a",
        "b",
        "A",
        "B",
        ".",
        r"\w",
        r"\W",
        r"\d",
        r"\s",
        r"\S",
        r"\D",
        "[ab]",
        "[^a]",
        "[a-c]",
        "[^\\n]",
        " ",
        r"\(",
        "é",
        "(?:^a)",
        r"(?:a\b)",
        r"(?:\Bb)",
        "(?:b$)",
        r"[\r\t]",
    ]
)


@st.composite
def _regexes(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        atom = draw(_ATOMS)
        if draw(st.booleans()):
            # No repeat on an alternation: (a|.)+ backtracks exponentially in Python.
            atom = f"(?:{atom}|{draw(_ATOMS)})"
        else:
            atom += draw(st.sampled_from(["", "", "+", "*", "?", "{1,3}", "+?", "{,2}"]))
        parts.append(atom)
    anchor = draw(st.sampled_from(["", "^", r"\b", r"\B"]))
    tail = draw(st.sampled_from(["", "$", r"\b"]))
    flags = draw(st.sampled_from(["", "(?i)"]))
    return flags + anchor + "".join(parts) + tail


_LINES = st.lists(
    st.text(alphabet="abAB (é\t\r\x0b1_", max_size=12).map(lambda s: s.encode()), max_size=6
)


@settings(max_examples=300, deadline=None)
@given(pattern=_regexes(), files=st.lists(_LINES, min_size=1, max_size=4), final=st.booleans())
def test_random_regexes_match_python(pattern: str, files: list[list[bytes]], final: bool) -> None:
    datas = [b"\n".join(lines) + (b"\n" if final and lines else b"") for lines in files]
    paths = [f"f{i}.txt" for i in range(len(datas))]
    fast = compile_query(pattern, max_results=1000)
    slow = compile_query(pattern, max_results=1000, accelerate=False)
    a = search.search(paths, datas, fast, lambda _p: None)
    b = search.search(paths, datas, slow, lambda _p: None)
    assert _same(a, b), pattern


def test_scans_collect_no_more_reports_than_the_output_can_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "DENSE_REPORTS_PER_MIB", 10**9)  # stay in Hyperscan
    monkeypatch.setattr(search, "MIN_REPORTS_PER_SCAN", 1)
    monkeypatch.setattr(search, "FIRST_BATCH_BYTES", 1 << 20)  # every file in one batch
    caps: list[int | None] = []
    scan = accelerated.Matcher.scan

    def spy(self: accelerated.Matcher, *args: Any) -> Any:
        caps.append(args[2] if len(args) > 2 else None)
        return scan(self, *args)

    monkeypatch.setattr(accelerated.Matcher, "scan", spy)
    # "a" is on many lines, several times on some: a cap of 4 × the lines still wanted
    # cuts the scan, which then resumes where it stopped.
    for max_results in (1, 2, 3, 1000):
        caps.clear()
        fast, slow, accelerated_ = _pair("a", literal=True, max_results=max_results)
        assert accelerated_ and _same(fast, slow)
        assert caps[0] == 4 * (max_results + 1)


def test_a_search_scans_only_as_far_as_the_output_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(search, "FIRST_BATCH_BYTES", 32)
    monkeypatch.setattr(search, "DENSE_REPORTS_PER_MIB", 10**9)  # stay in Hyperscan
    many = {f"f{i:03d}.txt": b"word\n" * 10 for i in range(200)}
    paths = sorted(many)
    helds = [many[p] for p in paths]
    scanned: list[int] = []
    scan = accelerated.Matcher.scan

    def spy(self: accelerated.Matcher, buffers: Any, *args: Any) -> Any:
        scanned.append(len(buffers))
        return scan(self, buffers, *args)

    monkeypatch.setattr(accelerated.Matcher, "scan", spy)
    query = compile_query("word", literal=True, max_results=5)
    result = search.search(paths, helds, query, many.get)
    assert result.matches == 5 and result.truncated
    assert scanned == [1]  # the first file held enough; nothing more was scanned
    scanned.clear()
    query = compile_query("word", literal=True, max_results=1500)
    result = search.search(paths, helds, query, many.get)
    assert result.matches == 1500 and len(scanned) > 2  # batches doubling


@given(
    sizes=st.lists(st.integers(min_value=0, max_value=50), max_size=60),
    value=st.integers(min_value=0, max_value=3000),
    low=st.integers(min_value=0, max_value=60),
)
def test_running_totals_are_accumulate_and_bisect_left(
    sizes: list[int], value: int, low: int
) -> None:
    # A size of 0 is also a file not held (None), which counts as empty.
    helds = [b"x" * n if n or low % 2 else None for n in sizes]
    expected = list(accumulate(sizes))
    totals = search._RunningTotals(helds)
    totals.STEP = 7  # several extensions
    low = min(low, len(sizes))
    assert totals.bisect(value, low) == bisect_left(expected, value, low)
    assert [totals[i] for i in range(len(sizes))] == expected


def test_end_anchors_are_left_to_python_because_hyperscan_misses_some() -> None:
    # Hyperscan alone misses this match (it ends right before the buffer's last
    # newline); without `$` it finds a superset, and Python checks each line.
    assert translate(rb".[ab]$", re.MULTILINE) == (rb"[\x00-\x09\x0b-\xff][\x61-\x62]", False)
    data = "1111111ééééa".encode() + b"\n"
    for pattern in (r"(?:a|[^\n])(?:a|b)$", r".[ab]$", r"a$|zz", r"a$b"):
        fast = compile_query(pattern, max_results=1000)
        slow = compile_query(pattern, max_results=1000, accelerate=False)
        assert fast.matcher is not None and not fast.matcher.exact
        others = [b"xa\nab\nzz\n", b"b" * 40 + b"a\n" + b"c" * 40]
        paths = ["f0", "f1", "f2"]
        a = search.search(paths, [data, *others], fast, lambda _p: None)
        b = search.search(paths, [data, *others], slow, lambda _p: None)
        assert _same(a, b), pattern
    assert search.search(["f"], [data], compile_query(r".[ab]$"), lambda _p: None).matches == 1
