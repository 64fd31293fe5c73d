"""format_tree (detailed up to 300 files, compact beyond, bounded) and the JSON cache."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from idx_helpers import Writer

from agentls.indexer import IndexCache, IndexSettings, RepoIndexer
from agentls.indexer.tree import TRUNCATED


def _many(write: Writer, count: int) -> None:
    for i in range(count):
        folder = ["src", "tests", "docs"][i % 3]
        ext = ".md" if folder == "docs" else ".py"
        write(f"{folder}/sub{i % 7}/file{i:04d}{ext}", "a\n")


def test_detailed_tree_at_300_files(tmp_path: Path, write: Writer) -> None:
    _many(write, 299)
    write("README.md", "hi\n")
    tree = RepoIndexer(tmp_path).build().format_tree(max_chars=100_000)
    assert tree.splitlines()[0].startswith("./ (300 files, 300 lines; Python 200, Markdown 100")
    assert "├── src/" in tree and "│   ├── sub0/" in tree and "└── README.md" in tree
    assert "file0003.py" in tree
    assert tree.count(".py") + tree.count(".md") == 300


def test_compact_view_beyond_300_files(tmp_path: Path, write: Writer) -> None:
    _many(write, 300)
    write("README.md", "hi\n")
    tree = RepoIndexer(tmp_path).build().format_tree()
    assert "├──" not in tree
    assert "  src/ (100; Python 100)" in tree
    assert "  docs/ (100; Markdown 100)" in tree
    assert "Top-level files: README.md" in tree


def test_tree_is_bounded(tmp_path: Path, write: Writer) -> None:
    _many(write, 250)
    index = RepoIndexer(tmp_path).build()
    tree = index.format_tree(max_chars=1000)
    assert len(tree) <= 1000
    assert tree.endswith(TRUNCATED)
    for i in range(40):
        write(f"top{i:03d}_with_a_rather_long_name.txt")
    big = RepoIndexer(tmp_path).build().format_tree(max_chars=500)
    assert len(big) <= 500


def _cached_build(root: Path, cache: IndexCache) -> tuple[str, int]:
    index = RepoIndexer(root, IndexSettings(hold_text=False), cache=cache).build()
    return index.source, index.total_files


def test_cache_hit_then_invalidated_by_change(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x\n")
    cache = IndexCache(tmp_path / "cache" / "index.json")
    assert _cached_build(root, cache) == ("walk", 1)
    assert _cached_build(root, cache) == ("cache", 1)
    (root / "b.py").write_text("y\n")
    assert _cached_build(root, cache) == ("walk", 2)
    assert _cached_build(root, cache) == ("cache", 2)
    (root / "a.py").write_text("x = 'longer now'\n")  # size (and mtime) change
    assert _cached_build(root, cache)[0] == "walk"


def test_cache_ttl(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x\n")
    path = tmp_path / "index.json"
    assert _cached_build(root, IndexCache(path))[0] == "walk"
    data = json.loads(path.read_text())
    data["created"] = time.time() - 301
    path.write_text(json.dumps(data))
    assert _cached_build(root, IndexCache(path))[0] == "walk"
    assert _cached_build(root, IndexCache(path, ttl=0))[0] == "walk"


def test_corrupt_or_old_cache_is_ignored_and_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x\n")
    path = tmp_path / "index.json"
    for junk in [b"{not json", b"\xff\xfe", b"[]", b'{"format": 0}', b'{"format": 1}']:
        path.write_bytes(junk)
        assert _cached_build(root, IndexCache(path)) == ("walk", 1)
        assert json.loads(path.read_text())["format"] == 1
    assert _cached_build(root, IndexCache(path)) == ("cache", 1)


def test_cache_keeps_non_utf8_names(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    with open(os.path.join(os.fsencode(root), b"caf\xe9.py"), "wb") as fh:
        fh.write(b"x\n")
    cache = IndexCache(tmp_path / "index.json")
    first = RepoIndexer(root, IndexSettings(hold_text=False), cache=cache).build()
    second = RepoIndexer(root, IndexSettings(hold_text=False), cache=cache).build()
    assert second.source == "cache"
    assert second.paths() == first.paths()


def test_unwritable_cache_location_is_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x\n")
    (tmp_path / "blocker").write_text("a file where a directory should be")
    cache = IndexCache(tmp_path / "blocker" / "index.json")
    assert _cached_build(root, cache) == ("walk", 1)
