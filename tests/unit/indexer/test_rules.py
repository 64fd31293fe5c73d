"""Which files get indexed: excludes, .gitignore (nested, negation), binaries, sizes, links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from idx_helpers import Writer

from agentls.indexer import IndexSettings, RepoIndexer


def build(root: Path, **kw: object) -> list[str]:
    index = RepoIndexer(root, IndexSettings(**kw)).build()  # type: ignore[arg-type]
    return index.paths()


def test_default_excluded_dirs_and_patterns(tmp_path: Path, write: Writer, mode: str) -> None:
    write("src/app.py", "print(1)\n")
    for rel in [
        "node_modules/x/index.js",
        "pkg/__pycache__/m.cpython-311.pyc",
        ".venv/lib/site.py",
        "dist/out.js",
        "build/lib/a.py",
        ".tox/py/x.py",
        ".mypy_cache/a.json",
        "src/m.pyc",
        "web/app.min.js",
        "package-lock.json",
        "sub/yarn.lock",
    ]:
        write(rel)
    assert build(tmp_path) == ["src/app.py"]


def test_user_excludes(tmp_path: Path, write: Writer, mode: str) -> None:
    write("a/keep.py")
    write("generated/g.py")
    write("docs/api/ref.md")
    write("docs/guide.md")
    write("data/x.csv")
    paths = build(
        tmp_path,
        exclude_dirs=(".git", "generated", "docs/api"),
        exclude_patterns=("*.csv",),
    )
    assert paths == ["a/keep.py", "docs/guide.md"]


def test_gitignore_nested_and_negation(tmp_path: Path, write: Writer, mode: str) -> None:
    write(".gitignore", "*.log\n!important.log\nsecret/\n/rootonly.txt\n")
    write("a.log")
    write("important.log")
    write("secret/key.txt")
    write("rootonly.txt")
    write("sub/rootonly.txt")
    write("sub/.gitignore", "*.tmp\n!keep.tmp\n")
    write("sub/x.tmp")
    write("sub/keep.tmp")
    write("sub/deeper/y.tmp")
    write("sub/deeper/z.py")
    write("other/x.tmp")
    paths = build(tmp_path)
    assert paths == [
        ".gitignore",
        "important.log",
        "other/x.tmp",
        "sub/.gitignore",
        "sub/deeper/z.py",
        "sub/keep.tmp",
        "sub/rootonly.txt",
    ]


def test_nested_gitignore_can_reinclude_what_parent_ignores(
    tmp_path: Path, write: Writer, mode: str
) -> None:
    write(".gitignore", "*.gen\n")
    write("a.gen")
    write("lib/.gitignore", "!*.gen\n")
    write("lib/b.gen")
    assert build(tmp_path) == [".gitignore", "lib/.gitignore", "lib/b.gen"]


def test_no_reinclusion_below_an_ignored_directory(
    tmp_path: Path, write: Writer, mode: str
) -> None:
    write(".gitignore", "out/\n!out/keep.txt\n")
    write("out/keep.txt")
    assert build(tmp_path) == [".gitignore"]


def test_binary_and_huge_files_are_skipped_but_known(tmp_path: Path, write: Writer) -> None:
    write("text.txt", "hello\n")
    write("image.png", b"\x89PNG\r\n\x00\x00" + b"x" * 100)
    write("late_nul.txt", b"a" * 9000 + b"\x00")  # NUL after the sniffed 8 KiB: text
    write("huge.txt", "y" * 20_000)
    index = RepoIndexer(tmp_path, IndexSettings(max_file_size=10_000)).build()
    assert index.paths() == ["late_nul.txt", "text.txt"]
    assert index.other_paths == {"image.png": "binary", "huge.txt": "too_large"}
    assert index.skipped["binary"] == 1
    assert index.skipped["too_large"] == 1


def test_symlinks_inside_outside_and_broken(tmp_path: Path, write: Writer) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    write("outside/secret.txt", "top secret\n")
    write("repo/real.py", "x = 1\n")
    write("repo/pkg/mod.py", "y = 2\n")
    os.symlink(root / "real.py", root / "alias.py")
    os.symlink(outside / "secret.txt", root / "leak.txt")
    os.symlink(outside, root / "outdir")
    os.symlink(root / "pkg", root / "pkglink")  # directory links are not followed
    os.symlink(root / "missing.py", root / "broken.py")
    index = RepoIndexer(root).build()
    assert index.paths() == ["alias.py", "pkg/mod.py", "real.py"]
    assert index.skipped["outside_root"] >= 1
    assert index.skipped["missing"] == 1
    assert "top secret" not in index.format_tree()


def test_non_utf8_file_names(tmp_path: Path, write: Writer, mode: str) -> None:
    write(b"caf\xe9.py", "x = 1\n")
    write("ok.py", "y = 2\n")
    index = RepoIndexer(tmp_path).build()
    assert len(index.paths()) == 2
    tree = index.format_tree()
    assert "caf\ufffd.py" in tree
    tree.encode("utf-8")  # displayable, no lone surrogates


def test_unreadable_file_is_counted_not_fatal(tmp_path: Path, write: Writer) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    path = write("locked.py")
    write("open.py")
    path.chmod(0)
    try:
        index = RepoIndexer(tmp_path).build()
    finally:
        path.chmod(0o644)
    assert index.paths() == ["open.py"]
    assert index.skipped["error"] == 1


def test_totals_and_languages(tmp_path: Path, write: Writer) -> None:
    write("a.py", "1\n2\n3\n")
    write("b.py", "1\n2")  # no final newline still counts its last line
    write("c.ts", "")
    write("Makefile", "all:\n")
    index = RepoIndexer(tmp_path).build()
    assert index.total_files == 4
    assert index.total_lines == 3 + 2 + 0 + 1
    assert index.languages == {"Python": 2, "Makefile": 1, "TypeScript": 1}
    info = index.get("a.py")
    assert info is not None and (info.ext, info.language, info.lines) == (".py", "Python", 3)
    assert index.text is not None and index.text.get("a.py") == b"1\n2\n3\n"


def test_text_cap_stops_holding_further_files(tmp_path: Path, write: Writer) -> None:
    for i in range(10):
        write(f"f{i}.txt", "z" * 100)
    index = RepoIndexer(tmp_path, IndexSettings(max_text_bytes=450)).build()
    assert index.total_files == 10
    assert index.text is not None and len(index.text) == 4
    assert index.text.total_bytes <= 450


def test_git_lists_untracked_and_tracked_files(tmp_path: Path, write: Writer) -> None:
    from idx_helpers import git_init

    git_init(tmp_path)
    write("tracked.py")
    write("new.py")
    import subprocess

    subprocess.run(["git", "-C", str(tmp_path), "add", "tracked.py"], check=True)
    index = RepoIndexer(tmp_path).build()
    assert index.source == "git"
    assert index.paths() == ["new.py", "tracked.py"]


def test_listing_with_git_runs_nothing_the_repository_configured(
    tmp_path: Path, write: Writer
) -> None:
    # An untrusted repository's .git/config must not get code run by the index: git calls
    # the fsmonitor hook on every index refresh, `ls-files` included.
    import subprocess

    from idx_helpers import git_init

    git_init(tmp_path)
    write("app.py")
    marker = tmp_path.parent / f"{tmp_path.name}-fsmonitor-ran"
    subprocess.run(
        ["git", "-C", str(tmp_path), "config", "core.fsmonitor", f"touch {marker}; echo"],
        check=True,
    )
    index = RepoIndexer(tmp_path).build()
    assert index.source == "git" and index.paths() == ["app.py"]
    assert not marker.exists()
