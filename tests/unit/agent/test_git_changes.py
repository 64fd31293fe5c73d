"""The uncommitted changes, read with git so that the repository's config runs nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentls.agent.prompts.git_changes import NoChangesError, uncommitted_changes


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "app.py").write_text("x = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


async def test_the_diff_and_the_new_files_are_shown(repo: Path) -> None:
    (repo / "app.py").write_text("x = 2\n")
    (repo / "new.py").write_text("y = 1\n")
    changes = await uncommitted_changes(repo)
    assert "-x = 1\n+x = 2" in changes.diff and changes.untracked == ["new.py"]
    assert "```diff" in changes.render() and "new.py" in changes.render()


async def test_the_repositorys_own_config_runs_nothing(repo: Path) -> None:
    marker = repo.parent / "pwned"
    git(repo, "config", "core.fsmonitor", f"touch {marker}; echo")
    git(repo, "config", "diff.external", f"sh -c 'touch {marker}'")
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    git(repo, "config", "diff.evil.textconv", f"sh -c 'touch {marker}; cat'")
    (repo / "app.py").write_text("x = 3\n")
    changes = await uncommitted_changes(repo)
    assert "+x = 3" in changes.diff
    assert not marker.exists()


async def test_nothing_to_show_is_a_clear_error(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(NoChangesError, match="there are no uncommitted changes"):
        await uncommitted_changes(repo)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NoChangesError, match=r"not a git repository|not inside a git"):
        await uncommitted_changes(plain)


async def test_a_long_diff_is_cut_and_says_so(repo: Path) -> None:
    (repo / "app.py").write_text("".join(f"line {i}\n" for i in range(5000)))
    changes = await uncommitted_changes(repo, limit=1000)
    assert changes.cut and len(changes.diff) == 1000 and "was cut" in changes.render()
