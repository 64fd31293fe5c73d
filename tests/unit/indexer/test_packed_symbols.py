"""FileSymbols keeps a file's definitions and references packed: what goes in comes out,
through the disk cache too, and a cache whose fields disagree is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from idx_helpers import write_file

from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.repomap import SymbolIndex
from agentls.indexer.symbols import KIND_CODES, Definition, FileSymbols, extract

NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
    min_size=1,
    max_size=12,
)
DEFINITIONS = st.lists(
    st.builds(
        Definition,
        name=NAMES,
        kind=st.sampled_from(sorted(KIND_CODES)),
        line=st.integers(1, 2**31),
        signature=st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
            max_size=40,
        ),
    ),
    max_size=20,
)
REFERENCES = st.dictionaries(
    NAMES, st.lists(st.integers(1, 2**31), min_size=1, max_size=8).map(tuple), max_size=20
)


@settings(max_examples=300, deadline=None)
@given(definitions=DEFINITIONS, references=REFERENCES)
def test_what_is_packed_comes_back(
    definitions: list[Definition], references: dict[str, tuple[int, ...]]
) -> None:
    symbols = FileSymbols(definitions, references)
    assert symbols.definitions == definitions
    assert symbols.count == len(definitions)
    assert symbols.names() == [d.name for d in definitions]
    assert all(symbols.defines(d.name) for d in definitions)
    assert symbols.references == references
    assert dict(symbols.reference_counts()) == {n: len(at) for n, at in references.items()}
    assert all(symbols.lines_of(name) == at for name, at in references.items())
    assert symbols.lines_of("\n") == ()
    # the disk cache's form: JSON strings, read back equal
    again = FileSymbols.packed(json.loads(json.dumps(symbols.to_packed())))
    assert again == symbols
    assert again.definitions == definitions and again.references == references


def test_a_name_is_defined_only_as_a_whole_name() -> None:
    symbols = FileSymbols([Definition("checkout", "function", 3, "def checkout():")])
    assert symbols.defines("checkout")
    assert not symbols.defines("check")
    assert not symbols.defines("out")


def test_extracted_symbols_pack_the_same_as_parsed() -> None:
    source = b"class Shop:\n    def checkout(self, cart):\n        return total(cart)\n"
    found = extract(source, "Python")
    assert [(d.name, d.kind, d.line) for d in found.definitions] == [
        ("Shop", "class", 1),
        ("checkout", "method", 2),
    ]
    assert found.definitions[1].signature == "def checkout(self, cart):"
    assert found.lines_of("total") == (3,)
    assert FileSymbols.packed(found.to_packed()) == found


def test_the_packed_form_is_two_strings() -> None:
    symbols = FileSymbols(
        [Definition("alpha", "function", 1, "def alpha():")], {"beta": (2,), "gamma": (3, 7)}
    )
    assert symbols.to_packed() == ["f\nalpha\ndef alpha():\nbeta\ngamma", "2 1 1 2 2 3 7"]


def test_numbers_take_two_bytes_each_unless_a_line_is_past_65535() -> None:
    # The numbers are most of a large workspace's symbols (half of them in 4 bytes each).
    small = FileSymbols([Definition("a", "function", 65_535, "def a():")], {"b": (3, 7)})
    large = FileSymbols([Definition("a", "function", 65_536, "def a():")], {"b": (3, 7)})
    assert small._numbers.itemsize == 2 and large._numbers.itemsize == 4
    for symbols in (small, large):
        again = FileSymbols.packed(symbols.to_packed())
        assert again == symbols and again._numbers.itemsize == symbols._numbers.itemsize
    assert large.definitions[0].line == 65_536 and large.lines_of("b") == (3, 7)


@pytest.mark.parametrize(
    "fields",
    [
        ["f\na\nb\ndef a():", "0 1"],  # a line too many for one definition
        ["f\na\ndef a():", "0 1 2"],  # a number too many
        ["f\na\ndef a():", "0"],  # a line number missing
        ["?\na\ndef a():", "0 1"],  # no such kind
        ["f\na\ndef a():\nb", "1 1 2 5"],  # two lines counted for b, one kept
        ["f\na\ndef a():\nb", "0 1"],  # a referenced name not counted
        ["f\na\ndef a():", "0 one"],  # not a number
        ["f\na\ndef a():", ""],  # no header
        ["f\na\ndef a():"],  # a field missing
    ],
)
def test_packed_fields_that_disagree_are_refused(fields: list[str]) -> None:
    with pytest.raises(ValueError):
        FileSymbols.packed(fields)


def _index(root: Path, cache: Path) -> SymbolIndex:
    index = RepoIndexer(root, IndexSettings()).build()
    symbols = SymbolIndex(index, cache)
    symbols.start()
    assert symbols.wait_filled(30)
    return symbols


def test_a_cache_of_another_format_is_parsed_again(tmp_path: Path) -> None:
    write_file(tmp_path, "a.py", "def alpha():\n    return beta()\n")
    cache = tmp_path / "cache" / "symbols.json"
    first = _index(tmp_path, cache).files()
    data = json.loads(cache.read_text())
    stamp = data["files"]["a.py"][:2]
    # the previous format: one list per definition, references as a mapping
    data["format"] = 1
    data["files"]["a.py"] = [*stamp, [["alpha", "function", 1, "def alpha():"]], {"beta": [2]}]
    cache.write_text(json.dumps(data))
    second = _index(tmp_path, cache)
    assert second.files() == first
    assert [h.line for h in second.find_references("beta")] == [2]
    assert json.loads(cache.read_text())["format"] == 3
