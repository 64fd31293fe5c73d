"""A new worktree is a copy of the user's folder only when that folder is the top of its
repository (a worktree holds the whole repository, its paths from the top)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agentls.agent.folder.worktree_runs import copied_folder


def test_the_repository_top_is_copied_a_folder_inside_is_not(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    (top / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=top, check=True)
    link = tmp_path / "link"
    link.symlink_to(top)

    assert copied_folder(top) == top.resolve()
    assert copied_folder(link) == top.resolve()  # the cache names the real folder
    assert copied_folder(top / "sub") is None
