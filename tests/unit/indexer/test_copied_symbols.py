"""A tree copied from another (a worktree made from the user's tree) takes the original's
symbols for every file still as it was there, and parses the rest: a file changed in
either tree since the copy, or one the original's cache does not describe."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.repomap import CopiedTree, SymbolIndex
from agentls.indexer.symbols import extract, grammar_name
from agentls.indexer.symbols_client import SymbolProcess

WAIT = 30.0
FILES = {
    "kept.py": "def kept():\n    pass\n",
    "mine.py": "def mine():\n    pass\n",
    "theirs.py": "def theirs():\n    pass\n",
    "pkg/deep.py": "class Deep:\n    pass\n",
}


def original_with_forged_cache(tmp_path: Path) -> CopiedTree:
    """The original tree, its symbols cached, and the cache's entry for kept.py and
    pkg/deep.py replaced by symbols no parse of them gives: seeing those in the copy
    proves they were taken from the cache, not parsed."""
    root = tmp_path / "original"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    cache = tmp_path / "original-symbols.json"
    symbols = SymbolIndex(RepoIndexer(root, IndexSettings()).build(), cache)
    symbols.start()
    assert symbols.wait_filled(WAIT)
    data = json.loads(cache.read_text())
    python = grammar_name("Python", ".py")
    assert python is not None
    forged = extract(b"def from_the_cache():\n    pass\n", python).to_packed()
    for rel in ("kept.py", "pkg/deep.py"):
        data["files"][rel][2:] = forged
    cache.write_text(json.dumps(data))
    return CopiedTree(root.resolve(), cache)


def copy_of(origin: CopiedTree, tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    # A plain copy: new mtimes, as a git checkout gives.
    shutil.copytree(origin.root, copy, copy_function=shutil.copy)
    # The user changes one file of theirs after the copy (same size), the copy another.
    (origin.root / "mine.py").write_text("def MINE():\n    pass\n")
    (copy / "theirs.py").write_text("def theirs_changed():\n    pass\n")
    return copy


def definitions(symbols: SymbolIndex) -> dict[str, list[str]]:
    return {
        path: sorted(d.name for d in found.definitions)
        for path, found in sorted(symbols.files().items())
    }


def test_the_copy_takes_the_originals_symbols_for_unchanged_files(tmp_path: Path) -> None:
    origin = original_with_forged_cache(tmp_path)
    copy = copy_of(origin, tmp_path)
    symbols = SymbolIndex(
        RepoIndexer(copy, IndexSettings()).build(), tmp_path / "copy.json", copied_from=origin
    )
    symbols.start()
    assert symbols.wait_filled(WAIT)

    assert definitions(symbols) == {
        "kept.py": ["from_the_cache"],  # taken
        "mine.py": ["mine"],  # changed in the original since: parsed in the copy
        "pkg/deep.py": ["from_the_cache"],
        "theirs.py": ["theirs_changed"],  # changed in the copy: parsed
    }
    # What was taken is in the copy's own cache, under the copy's stamps: its next
    # start needs neither tree's parsing.
    again = SymbolIndex(RepoIndexer(copy, IndexSettings()).build(), tmp_path / "copy.json")
    again.start()
    assert again.wait_filled(WAIT)
    assert definitions(again) == definitions(symbols)


def test_a_cache_of_another_tree_or_none_at_all_means_parsing(tmp_path: Path) -> None:
    origin = original_with_forged_cache(tmp_path)
    copy = copy_of(origin, tmp_path)
    index = RepoIndexer(copy, IndexSettings()).build()
    parsed = {
        "kept.py": ["kept"],
        "mine.py": ["mine"],
        "pkg/deep.py": ["Deep"],
        "theirs.py": ["theirs_changed"],
    }
    elsewhere = CopiedTree(tmp_path / "somewhere-else", origin.cache_path)
    missing = CopiedTree(origin.root, tmp_path / "no-such-cache.json")
    for copied_from in (elsewhere, missing):
        symbols = SymbolIndex(index, None, copied_from=copied_from)
        symbols.start()
        assert symbols.wait_filled(WAIT)
        assert definitions(symbols) == parsed


async def test_the_symbol_process_takes_them_too(tmp_path: Path) -> None:
    origin = original_with_forged_cache(tmp_path)
    copy = copy_of(origin, tmp_path)
    process = SymbolProcess(
        RepoIndexer(copy, IndexSettings()).build(), tmp_path / "copy.json", copied_from=origin
    )
    try:
        assert await process.wait_filled(WAIT)
        found = await process.find_definitions("from_the_cache")
        assert sorted(hit.path for hit in found) == ["kept.py", "pkg/deep.py"]
        assert [hit.path for hit in await process.find_definitions("mine")] == ["mine.py"]
    finally:
        await process.close()
