"""The matcher (context, truncation, edge lines), literal extraction and memory/disk parity."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from idx_helpers import Writer

from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.literals import line_local, required_literals
from agentls.indexer.query import find_paths, search_files
from agentls.indexer.search import compile_query, expand_braces, path_filter, search


def _render(files: dict[str, bytes], pattern: str, **kw: object) -> str:
    context = int(kw.pop("context_lines", 0))  # type: ignore[call-overload]
    max_results = int(kw.pop("max_results", 50))  # type: ignore[call-overload]
    query = compile_query(pattern, context_lines=context, max_results=max_results, **kw)  # type: ignore[arg-type]
    paths = sorted(files)
    result = search(paths, [files[p] for p in paths], query, lambda _p: None)
    return result.render(context, max_results)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"def \w+_handler", (("_handler",), False)),
        ("foo|bar", (("bar", "foo"), False)),
        (r"(?i)Hello\s+world", (("Hello",), True)),
        (r"(?:import|from)\s+os", (("from", "import"), False)),
        ("colou?r", (("colo",), False)),
        (r"\bTODO\b", (("TODO",), False)),
        ("(foo)?barbaz", (("barbaz",), False)),
        (r"(?i:abc)def", (("def",), False)),
        ("x(?:abc)+y", (("abc",), False)),
        ("a.b", None),
        ("[ab]c", None),
        ("a|b", None),
        ("foo|.*", None),
        ("(foo", None),  # invalid: no pre-scan, the compile reports the error
    ],
)
def test_required_literals(pattern: str, expected: object) -> None:
    assert required_literals(pattern) == expected


def test_literals_never_reject_a_real_match() -> None:
    text = "alpha beta\nGamma delta_handler\ncolor colour\n"
    for pattern in [r"\w+_handler", "colou?r", "(?i)gamma", "beta|zzz", r"(al|be)ph?a"]:
        found = required_literals(pattern)
        if re.search(pattern, text) and found:
            literals, fold = found
            hay = text.lower() if fold else text
            assert any((lit.lower() if fold else lit) in hay for lit in literals)


def test_hits_and_context_groups() -> None:
    data = b"".join(f"line {i}\n".encode() for i in range(1, 21))
    out = _render({"a.txt": data, "b.txt": b"line 3\n"}, r"line (3|5|15)$", context_lines=1)
    assert out.splitlines() == [
        "a.txt-2- line 2",
        "a.txt:3: line 3",
        "a.txt-4- line 4",
        "a.txt:5: line 5",
        "a.txt-6- line 6",
        "--",
        "a.txt-14- line 14",
        "a.txt:15: line 15",
        "a.txt-16- line 16",
        "--",
        "b.txt:3: line 3" if False else "b.txt:1: line 3",
    ]


def test_no_separators_without_context_and_one_hit_per_line() -> None:
    out = _render({"x.py": b"aa aa\nb\naa\n"}, "aa")
    assert out == "x.py:1: aa aa\nx.py:3: aa"


def test_truncation_notice() -> None:
    files = {f"f{i}.txt": b"hit\nhit\n" for i in range(10)}
    out = _render(files, "hit", max_results=5)
    lines = out.splitlines()
    assert lines[-1] == "[results truncated at 5 matches]"
    assert len(lines) == 6
    exact = _render({"a": b"hit\n" * 5}, "hit", max_results=5)
    assert "truncated" not in exact


def test_edges_final_newline_crlf_and_anchors() -> None:
    assert _render({"a": b"x\n"}, "^$") == ""
    assert _render({"a": b""}, "^") == ""
    assert _render({"a": b"one\r\ntwo\r\n"}, "two") == "a:2: two"
    assert _render({"a": b"ab\nab"}, "b$") == "a:1: ab\na:2: ab"
    assert _render({"a": b"first\nlast"}, "last", context_lines=3) == "a-1- first\na:2: last"


def test_case_insensitive_literal_and_unicode_text() -> None:
    files = {"a.md": "Grüße WORLD\nworld\n".encode()}
    out = _render(files, "World", literal=True, case_sensitive=False)
    assert out == "a.md:1: Grüße WORLD\na.md:2: world"
    assert _render(files, "Grüße") == "a.md:1: Grüße WORLD"


def test_long_lines_are_cut() -> None:
    out = _render({"min.js": b"x" * 5000 + b"needle" + b"y" * 5000}, "needle")
    assert len(out) < 400 and out.endswith("…")


def test_invalid_regex_raises_with_message() -> None:
    with pytest.raises(re.error, match="missing \\)"):
        compile_query("(foo")


def test_path_filter_and_braces() -> None:
    assert expand_braces("*.{ts,tsx}") == ["*.ts", "*.tsx"]
    keep = path_filter("src", "*.{ts,tsx}")
    assert keep("src/a.ts") and keep("src/x/b.tsx") and not keep("lib/a.ts")
    flat = path_filter("src", "*", recursive=False)
    assert flat("src/a.ts") and not flat("src/x/b.ts")
    by_path = path_filter("", "src/**/*.py")
    assert by_path("src/a/b.py") and by_path("src/b.py") and not by_path("lib/b.py")


PATTERNS = [
    ("def ", {"literal": True}),
    ("RETURN", {"literal": True, "case_sensitive": False}),
    (r"def \w+\(", {}),
    (r"class\s+[A-Z]\w*", {}),
    ("(?i)todo", {}),
    ("import os|import sys", {}),
    (r"^\s*#", {}),
    ("[0-9]{3,}", {}),
]


def _tree(write: Writer) -> None:
    write(".gitignore", "ignored/\n")
    write("ignored/x.py", "def hidden(): return 1\n")
    write("bin.dat", b"def \x00 binary")
    for i in range(40):
        body = "".join(
            f"# TODO item {j}\nimport os\ndef f{i}_{j}(x):\n    return x + {j * 123}\n"
            f"class K{j}: pass\n"
            for j in range(i % 5 + 1)
        )
        write(f"pkg{i % 4}/m{i}.py", body)
    write("docs/readme.md", "Import sys\nReturn values: TODO\n")
    write("big.py", "def big():\n" + "    x = 1\n" * 5000)


@pytest.mark.parametrize(("pattern", "kw"), PATTERNS)
async def test_parity_memory_disk_and_capped(
    tmp_path: Path, write: Writer, mode: str, pattern: str, kw: dict[str, bool]
) -> None:
    _tree(write)
    settings = IndexSettings(max_file_size=20_000)
    indexer = RepoIndexer(tmp_path, settings)
    held = indexer.build()
    unheld = RepoIndexer(tmp_path, IndexSettings(max_file_size=20_000, hold_text=False)).build()
    capped = RepoIndexer(tmp_path, IndexSettings(max_file_size=20_000, max_text_bytes=900)).build()
    assert capped.text is not None and 0 < len(capped.text) < capped.total_files
    outputs = []
    for index in (held, unheld, capped, None):
        for rel, glob in (("", "*"), ("pkg1", "*.py"), ("docs/readme.md", "*.py")):
            query = compile_query(pattern, context_lines=1, max_results=30, **kw)
            result = await search_files(
                query, rel=rel, file_glob=glob, recursive=True, indexer=indexer, index=index
            )
            outputs.append((rel, result.render(1, 30), result.matches))
    per_source = len(outputs) // 4
    for i in range(per_source):
        assert outputs[i] == outputs[i + per_source] == outputs[i + 2 * per_source]
        assert outputs[i] == outputs[i + 3 * per_source]
    assert any(matches for _, _, matches in outputs)
    assert all("ignored/" not in text and "bin.dat" not in text for _, text, _ in outputs)


async def test_find_paths_parity(tmp_path: Path, write: Writer, mode: str) -> None:
    _tree(write)
    indexer = RepoIndexer(tmp_path, IndexSettings(max_file_size=20_000))
    index = indexer.build()
    for rel, glob, recursive in [("", "*.py", True), ("pkg2", "*", False), ("", "*.dat", True)]:
        from_index = await find_paths(
            glob, rel=rel, recursive=recursive, indexer=indexer, index=index
        )
        from_disk = await find_paths(glob, rel=rel, recursive=recursive, indexer=indexer)
        assert from_index == from_disk
    assert await find_paths("*.dat", rel="", recursive=True, indexer=indexer) == ["bin.dat"]
    assert "big.py" in await find_paths("big.py", rel="", recursive=True, indexer=indexer)


@pytest.mark.parametrize(
    ("pattern", "local"),
    [
        (r"\w+Error\(", True),
        ("TODO|FIXME", True),
        (r"^def \w+$", True),
        ("(?i)todo", True),
        (r"foo\sbar", False),  # \s matches a newline
        ("foo[^x]bar", False),
        ("(?s)foo.bar", False),
        (r"foo\nbar", False),
        (r"(?<=a)foo", False),  # a lookbehind could look at the previous line
        (r"foo\Z", False),
        (r"foo\W", False),
    ],
)
def test_line_local_detection(pattern: str, local: bool) -> None:
    assert line_local(pattern) is local


@pytest.mark.parametrize(
    "pattern", [r"\w+Error\(", "TODO|FIXME|XXX", r"^\s*def \w+", r"(?i)fix(me)?\b", "a+b"]
)
def test_line_local_search_equals_whole_file_search(pattern: str) -> None:
    files = {
        "a.py": b"raise ValueError('x')\n# TODO: FIXME later\n  def go():\nXXX aab\n",
        "b.py": b"no hits here\nFixMe\nKeyError(\nab",
    }
    fast = compile_query(pattern, max_results=100)
    slow = dataclasses.replace(fast, literals=None, local=False, matcher=None)
    read: Callable[[str], bytes | None] = lambda _p: None  # noqa: E731
    paths = sorted(files)
    helds = [files[p] for p in paths]
    expected = search(paths, helds, slow, read).render(0, 100)
    assert search(paths, helds, fast, read).render(0, 100) == expected
    assert expected
