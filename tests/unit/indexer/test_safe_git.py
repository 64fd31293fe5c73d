"""agentls's one way of running git: whatever the repository's config and working tree
name (hooks, fsmonitor, external diff, textconv and filter drivers) does not run, and git's
environment holds no secret."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from agentls.indexer.safe_git import (
    GitSetupError,
    configured_hooks_path,
    git_argv,
    git_env,
    run_git,
    run_git_async,
)


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


def hook(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {marker}\n")
    path.chmod(0o755)


@pytest.mark.parametrize("hooks", [".githooks", ".husky/_", ".git/hooks"])
def test_no_hook_runs_on_a_commit_wherever_the_repository_keeps_them(
    repo: Path, hooks: str
) -> None:
    marker = repo.parent / "hook-ran"
    if hooks != ".git/hooks":
        git(repo, "config", "core.hooksPath", hooks)
    for name in ("pre-commit", "commit-msg", "post-commit", "prepare-commit-msg"):
        hook(repo / hooks / name, marker)
    (repo / "app.py").write_text("x = 2\n")
    assert run_git(["add", "-A"], cwd=repo).ok
    done = run_git(["commit", "-q", "-m", "change"], cwd=repo)
    assert done.ok, done.err
    assert not marker.exists()
    # The same repository, committed to by plain git, does run them: the test sees hooks.
    (repo / "app.py").write_text("x = 3\n")
    git(repo, "commit", "-qam", "plain")
    assert marker.exists()


def test_the_repositorys_filter_drivers_run_nowhere(repo: Path) -> None:
    marker = repo.parent / "filter-ran"
    for item in ("clean", "smudge"):
        git(repo, "config", f"filter.evil.{item}", f"sh -c 'touch {marker}; cat'")
    git(repo, "config", "filter.evil.required", "true")
    # A name that cannot be written after -c (it holds "="): still emptied.
    git(repo, "config", "filter.a=b.clean", f"sh -c 'touch {marker}; cat'")
    (repo / ".gitattributes").write_text("*.py filter=evil\n*.txt filter=a=b\n")
    (repo / "app.py").write_text("x = 2\n")
    (repo / "notes.txt").write_text("hello\n")
    for args in (["status", "--porcelain"], ["diff"], ["add", "-A"], ["diff", "--cached"]):
        done = run_git(args, cwd=repo)
        assert done.ok, (args, done.err)
    assert run_git(["commit", "-q", "-m", "c"], cwd=repo).ok
    assert run_git(["checkout", "HEAD~1", "--", "app.py"], cwd=repo).ok
    assert not marker.exists()
    git(repo, "add", "-A")  # plain git does run it
    assert marker.exists()


def test_the_users_own_filter_drivers_still_run(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A driver of the user's global config (git-lfs, say) is the user's program: a
    sandboxed command cannot write it, only choose it by name."""
    marker = tmp_path / "lfs-ran"
    user_config = tmp_path / "gitconfig"
    git(
        repo,
        "config",
        "--file",
        str(user_config),
        "filter.mine.clean",
        f"sh -c 'touch {marker}; cat'",
    )
    (repo / ".gitattributes").write_text("*.py filter=mine\n")
    (repo / "app.py").write_text("x = 2\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user_config))
    assert run_git(["add", "-A"], cwd=repo).ok
    assert marker.exists()
    # The repository redefining that driver makes it the repository's: emptied.
    marker.unlink()
    git(repo, "config", "filter.mine.clean", f"sh -c 'touch {marker}; cat'")
    (repo / "app.py").write_text("x = 3\n")
    assert run_git(["add", "-A"], cwd=repo).ok
    assert not marker.exists()


def test_fsmonitor_external_diff_and_textconv_do_not_run(repo: Path) -> None:
    marker = repo.parent / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {marker}; echo")
    git(repo, "config", "diff.external", f"sh -c 'touch {marker}'")
    git(repo, "config", "diff.evil.textconv", f"sh -c 'touch {marker}; cat'")
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    (repo / "app.py").write_text("x = 2\n")
    for args in (["ls-files", "-m"], ["status"], ["diff"], ["log", "-p"], ["show", "HEAD"]):
        assert run_git(args, cwd=repo).ok, args
    assert "+x = 2" in run_git(["diff"], cwd=repo).out
    assert not marker.exists()


def test_gits_environment_holds_only_what_git_needs(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "value-of-a-key-named-innocently-1234"
    monkeypatch.setenv("MY_PROVIDER", secret)  # llm.api_key_env may name anything
    monkeypatch.setenv("OPENAI_API_KEY", secret + "-2")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "false")
    monkeypatch.setenv("GIT_ASKPASS", "false")
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    # A shell alias shows the environment git runs anything in.
    done = run_git(["envdump"], cwd=repo, config={"alias.envdump": "!env"})
    assert done.ok, done.err
    names = {line.split("=", 1)[0] for line in done.out.splitlines() if "=" in line}
    assert secret not in done.out
    assert {"MY_PROVIDER", "OPENAI_API_KEY", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS"}.isdisjoint(names)
    assert "GIT_TERMINAL_PROMPT=0" in done.out.splitlines()
    assert "PATH" in names


def test_a_caller_cannot_pass_anything_else_on(repo: Path) -> None:
    with pytest.raises(GitSetupError):
        git_env({"OPENAI_API_KEY": "x"})
    with pytest.raises(GitSetupError):
        git_argv(["-c", "core.hooksPath=.githooks", "commit"])
    assert git_argv(["commit", "-m", "x"])[-4:] == ["commit", "--no-verify", "-m", "x"]


def test_the_async_way_is_the_same(repo: Path) -> None:
    marker = repo.parent / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {marker}; echo")
    git(repo, "config", "filter.evil.clean", f"sh -c 'touch {marker}; cat'")
    (repo / ".gitattributes").write_text("*.py filter=evil\n")
    (repo / "app.py").write_text("x = 2\n")
    done = asyncio.run(run_git_async(["diff"], cwd=repo))
    assert done.ok and "+x = 2" in done.out
    assert not marker.exists()


def test_the_configured_hooks_path_is_read_without_ours(repo: Path) -> None:
    assert configured_hooks_path(repo) is None
    git(repo, "config", "core.hooksPath", ".githooks")
    assert configured_hooks_path(repo) == str(repo / ".githooks")
    (repo / "sub").mkdir()
    assert configured_hooks_path(repo / "sub") == str(repo / ".githooks")
    git(repo, "config", "core.hooksPath", "/elsewhere/hooks")
    assert configured_hooks_path(repo) == "/elsewhere/hooks"
    assert configured_hooks_path(repo.parent / "missing") is None


def test_a_git_planted_in_the_folder_is_never_the_one_found(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = repo.parent / "planted-git-ran"
    for folder in (repo, repo / "node_modules" / ".bin"):
        folder.mkdir(parents=True, exist_ok=True)
        hook(folder / "git", marker)
    monkeypatch.setenv("PATH", f".:node_modules/.bin:{os.environ['PATH']}")
    assert run_git(["status"], cwd=repo).ok
    assert asyncio.run(run_git_async(["status"], cwd=repo)).ok
    assert not marker.exists()
