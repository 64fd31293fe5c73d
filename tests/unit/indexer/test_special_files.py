"""A FIFO in the tree (any sandboxed command can ``mkfifo``) must not hang the index: not
as a file to index, not as a ``.gitignore``, not swapped in after the walk's stat."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.indexer.builder import RepoIndexer
from agentls.indexer.settings import IndexSettings
from agentls.indexer.walker import _read

# A regression blocks in open(): the timeout turns it into a failure.
pytestmark = pytest.mark.timeout(30)


def test_the_index_skips_fifos_and_a_fifo_gitignore(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "sub" / "mod.py").write_text("y = 2\n")
    os.mkfifo(tmp_path / "pipe.py")
    os.mkfifo(tmp_path / "sub" / ".gitignore")
    index = RepoIndexer(tmp_path, IndexSettings(use_git=False)).build()
    assert sorted(info.path for info in index.files) == ["app.py", "sub/mod.py"]


def test_a_fifo_swapped_in_after_the_stat_is_refused_not_waited_on(tmp_path: Path) -> None:
    from agentls.regular_files import NotRegularFileError, read_regular

    os.mkfifo(tmp_path / "pipe.py")
    with pytest.raises(NotRegularFileError, match="a FIFO"):
        _read(str(tmp_path / "pipe.py"), 10, 1000)
    with pytest.raises(NotRegularFileError, match="symbolic link"):
        (tmp_path / "link.py").symlink_to(tmp_path / "pipe.py")
        read_regular(tmp_path / "link.py")
