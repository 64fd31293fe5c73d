"""A worktree leaves out agentls's own folder, whether the repository ignores it or not
(git refuses to add a literal path it ignores: .agentls/ in .gitignore is common)."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_repo import git

from agentls.agent.worktrees import commit_run, create, status


@pytest.mark.parametrize("ignored", [True, False], ids=["ignored", "not-ignored"])
def test_agentls_folder_stays_out_of_the_worktree(tmp_path: Path, ignored: bool) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    if ignored:
        (root / ".gitignore").write_text(".agentls/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / ".agentls" / "sessions").mkdir(parents=True)
    (root / ".agentls" / "sessions" / "s.jsonl").write_text("{}\n")
    (root / "app.py").write_text("x = 2\n")  # the user's uncommitted change goes along

    worktree = create(root, "one")

    assert (worktree.folder / "app.py").read_text() == "x = 2\n"
    assert not (worktree.folder / ".agentls" / "sessions").exists()
    (worktree.folder / ".agentls").mkdir(exist_ok=True)
    (worktree.folder / ".agentls" / "index.db").write_text("local\n")
    (worktree.folder / "app.py").write_text("x = 3\n")
    assert commit_run(worktree, "the run's work")
    committed = git(worktree.folder, "show", "--name-only", "--format=", "HEAD").split()
    assert committed == ["app.py"]
    assert not status(worktree).uncommitted
