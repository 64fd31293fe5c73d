"""The build's inlined tree scan gives what ``scan_file`` (the reference) gives, file by file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from idx_helpers import write_file

from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.builder import apply_scans
from agentls.indexer.index import RepoIndex
from agentls.indexer.treescan import WHOLE_READ_MAX, scan_tree
from agentls.indexer.walker import BINARY_SNIFF_BYTES, scan_file

SNIFF = BINARY_SNIFF_BYTES


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    write_file(root, "empty.txt", b"")
    write_file(root, "a.py", "print(1)\n")
    write_file(root, "no_final_newline.md", "# title\nbody")
    write_file(root, "exact_sniff.js", b"x" * (SNIFF - 1) + b"\n")
    write_file(root, "sniff_plus_one.js", b"y" * SNIFF + b"\n")
    write_file(root, "nul_in_head.bin", b"abc\x00def")
    write_file(root, "nul_after_head.txt", b"z" * (SNIFF + 10) + b"\x00tail\n")
    write_file(root, "big_text.css", b"a{}\n" * (WHOLE_READ_MAX // 4 + 100))
    write_file(root, "big_binary.dat", b"\x00" + b"q" * (WHOLE_READ_MAX + 10))
    write_file(root, "big_nul_late.txt", b"w" * (WHOLE_READ_MAX + 5) + b"\x00\n")
    write_file(root, "too_large.log", b"l\n" * WHOLE_READ_MAX)
    write_file(root, "Makefile", "all:\n\techo\n")
    write_file(root, b"caf\xe9.py", b"x = 1\n")
    write_file(root, "sub/deep/mod.ts", "export {}\n")
    os.symlink("a.py", root / "link_inside.py")
    os.symlink(str(tmp_path), root / "link_outside")
    os.symlink(str(tmp_path / "outside.txt"), root / "link_outside.txt")
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink("missing.py", root / "broken_link.py")
    os.mkfifo(root / "pipe.fifo")
    return root


SETTINGS = IndexSettings(
    exclude_dirs=(".git",),
    exclude_patterns=(),
    max_file_size=WHOLE_READ_MAX + 1000,
    use_gitignore=False,
    use_git=False,
)


def _reference(indexer: RepoIndexer) -> RepoIndex:
    index = indexer.new_index("walk")
    paths, _ = indexer.candidates()
    root, limit = indexer.real_root, indexer.settings.max_file_size
    apply_scans(index, [scan_file(root, rel, limit) for rel in paths])
    return index


def test_build_equals_the_reference_scan(tree: Path) -> None:
    indexer = RepoIndexer(tree, SETTINGS)
    built = indexer.build()
    expected = _reference(indexer)
    assert built.snapshot() == expected.snapshot()
    assert built.skipped == expected.skipped
    assert built.other_paths == expected.other_paths
    assert built.total_lines == expected.total_lines
    assert built.languages == expected.languages
    assert [f.mtime_ns for f in built.files] == [f.mtime_ns for f in expected.files]
    paths, held = built.sources()
    assert held == expected.sources()[1]
    # the cases the fast loop hands on, and the ones it decides itself
    other = built.other_paths
    assert other["nul_in_head.bin"] == "binary"
    assert other["big_binary.dat"] == "binary"
    assert other["too_large.log"] == "too_large"
    assert "nul_after_head.txt" in paths  # only the head is sniffed, like git
    assert "big_nul_late.txt" in paths
    assert "link_inside.py" in paths
    assert "link_outside.txt" not in paths and "link_outside.txt" not in other
    assert "pipe.fifo" not in paths
    assert built.skipped["missing"] == 1  # the broken link


def test_without_held_text_nothing_is_kept(tree: Path) -> None:
    scanned = scan_tree(str(tree), ["a.py", "Makefile"], 1000, keep_data=False)
    assert [i.path for i in scanned.infos] == ["a.py", "Makefile"]
    assert scanned.datas == []
    assert scanned.infos[1].language == "Makefile"


def test_a_file_that_grew_since_its_stat_takes_the_careful_path(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fstat = os.fstat

    def stale_fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, *st[1:6], 3, *st[7:]))  # claims 3 bytes

    monkeypatch.setattr(os, "fstat", stale_fstat)
    scanned = scan_tree(str(tree), ["a.py"], 1000, keep_data=True)
    assert scanned.infos == []
    assert scanned.others[0].info is not None
    assert scanned.others[0].data == b"print(1)\n"


def test_bulk_load_into_a_non_empty_index_replaces_like_put(tree: Path) -> None:
    indexer = RepoIndexer(tree, SETTINGS)
    index = indexer.build()
    lines = index.total_lines
    scanned = scan_tree(indexer.real_root, ["a.py"], 1000, keep_data=True)
    index.load(scanned.infos, scanned.datas)
    assert index.total_lines == lines
    assert index.sources(lambda p: p == "a.py")[1] == [b"print(1)\n"]
