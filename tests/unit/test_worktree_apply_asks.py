"""``agentls apply`` asks on its own, never under ``--yes``, for the changes of a worktree
that are more than a file's text: a protected file (here one a run without a sandbox
changed in place, which the clean-up can only name), a symbolic link, an executable bit, a
submodule. Each is named with what it is; the ordinary files are applied."""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path

import pytest
from git_repo import git

from agentls.agent.worktrees import commit_run, create, special_changes
from agentls.cli.worktrees import worktree_command_main


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    (root / "tools").mkdir()
    (root / "tools" / "hooks").mkdir()
    (root / "tools" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "core.hooksPath", "tools/hooks")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def apply_yes(root: Path, name: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    out = io.StringIO()
    args = argparse.Namespace(command="apply", name=name, yes=True, workspace=root)
    code = worktree_command_main(args, out=out)
    return code, out.getvalue() + capsys.readouterr().err


def test_apply_yes_writes_the_text_and_names_the_rest(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worktree = create(repo, "w")
    folder = worktree.folder
    (folder / "notes.md").write_text("# Notes\n")
    (folder / "tools" / "hooks" / "pre-commit").write_text(f"#!/bin/sh\ntouch {tmp_path}/x\n")
    (folder / "link").symlink_to("../../outside")
    (folder / "app.py").chmod(0o755)
    # A repository inside the tree (a set-up step cloning one): git adds it as a submodule.
    nested = folder / "vendored"
    nested.mkdir()
    git(nested, "init", "-q")
    git(nested, "commit", "-q", "--allow-empty", "-m", "x")
    assert commit_run(worktree, "run")

    kinds = {c.path: c.kind for c in special_changes(repo, worktree)}
    assert kinds == {
        "tools/hooks/pre-commit": "protected",
        "link": "symlink",
        "app.py": "mode",
        "vendored": "submodule",
    }
    code, shown = apply_yes(repo, "w", capsys)
    assert code == 0, shown
    assert (repo / "notes.md").read_text() == "# Notes\n"
    assert "tools/hooks/pre-commit: a protected file" in shown
    assert "link: a symbolic link to '../../outside' (outside the tree)" in shown
    assert "app.py: made executable" in shown
    assert "vendored: a submodule" in shown
    assert (repo / "tools" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not os.path.lexists(repo / "link") and not os.path.lexists(repo / "vendored")
    assert not os.access(repo / "app.py", os.X_OK)


def test_only_special_changes_apply_nothing_under_yes(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worktree = create(repo, "m")
    (worktree.folder / "app.py").chmod(0o755)
    assert commit_run(worktree, "run")
    code, shown = apply_yes(repo, "m", capsys)
    assert code == 1 and "Nothing applied" in shown and "app.py: made executable" in shown
    assert not os.access(repo / "app.py", os.X_OK)
