"""Protected paths of the workspace (``.git``, ``.mcp.json``, ``.vscode/``, ``AGENTS.md``...)
against commands run through the real execute_command, under real bubblewrap: read-only
where they exist, removed after the command where it creates them."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.protected.paths import find_protected
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.exec import ExecuteCommandArgs, ExecuteCommandTool
from agentls.agent.workspace import DiskFileAccess


def _ctx(root: Path, **agent: Any) -> ToolContext:
    config = AgentConfig.model_validate({"system_prompt": "x", **agent})
    run = RunContext(files=DiskFileAccess(root), config=AppConfig(), run_id="run-1")
    return ToolContext(run, agent=config)


async def run_cmd(root: Path, command: str, **agent: Any) -> ToolResult:
    return await ExecuteCommandTool().run(ExecuteCommandArgs(command=command), _ctx(root, **agent))


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def tree(path: Path) -> dict[str, bytes]:
    return {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit."""
    (tmp_path / "app.py").write_text("print('hi')\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first")
    return tmp_path


# -- what exists is read-only ---------------------------------------------------------------
async def test_a_command_cannot_plant_a_git_hook(bwrap: str, repo: Path) -> None:
    hooks = tree(repo / ".git" / "hooks")
    result = await run_cmd(repo, "printf '#!/bin/sh\\necho owned\\n' > .git/hooks/post-checkout")
    assert not result.success
    assert "Read-only file system" in result.output
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert tree(repo / ".git" / "hooks") == hooks


async def test_a_command_cannot_change_the_git_config(bwrap: str, repo: Path) -> None:
    config = (repo / ".git" / "config").read_bytes()
    result = await run_cmd(repo, "git config core.fsmonitor 'echo owned'")
    assert not result.success
    assert (repo / ".git" / "config").read_bytes() == config
    assert "fsmonitor" not in git(repo, "config", "--list")


async def test_git_status_diff_and_log_work_but_git_commit_does_not(bwrap: str, repo: Path) -> None:
    (repo / "app.py").write_text("print('changed')\n")
    status = await run_cmd(repo, "git status --short && git diff --stat && git log --oneline")
    assert status.success, status.output
    assert " M app.py" in status.output and "first" in status.output
    commit = await run_cmd(repo, "git -c user.name=t -c user.email=t@e commit -qam second")
    assert not commit.success
    assert "git add and commit cannot run here" in commit.output  # the model learns why
    assert git(repo, "log", "--oneline").count("\n") == 1


@pytest.mark.parametrize("rel", [".agentls.yaml", ".vscode/tasks.json", "sub/AGENTS.md"])
async def test_an_existing_protected_file_cannot_be_changed(
    bwrap: str, tmp_path: Path, rel: str
) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("original\n")
    result = await run_cmd(tmp_path, f"echo planted >> {rel}")
    assert not result.success
    assert "Read-only file system" in result.output
    assert path.read_text() == "original\n"


async def test_renaming_the_directory_above_a_protected_file_does_not_replace_it(
    bwrap: str, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AGENTS.md").write_text("original\n")
    result = await run_cmd(
        tmp_path, "mv sub moved && mkdir sub && echo planted > sub/AGENTS.md && echo done"
    )
    assert result.success, result.output
    assert (tmp_path / "sub" / "AGENTS.md").read_text() == "original\n"
    assert not (tmp_path / "moved" / "AGENTS.md").exists()
    assert "The command replaced sub/AGENTS.md, which commands may not change" in result.output
    assert "The original sub/AGENTS.md was moved back from moved/AGENTS.md." in result.output


async def test_a_protected_link_the_command_replaces_is_put_back(
    bwrap: str, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("original\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    result = await run_cmd(tmp_path, "rm CLAUDE.md && echo planted > CLAUDE.md")
    assert result.success, result.output
    assert os.readlink(tmp_path / "CLAUDE.md") == "AGENTS.md"
    assert (tmp_path / "AGENTS.md").read_text() == "original\n"
    assert "The command replaced CLAUDE.md" in result.output
    assert "The link was put back." in result.output


# -- what does not exist cannot be created -------------------------------------------------------
@pytest.mark.parametrize(
    ("rel", "named", "why"),
    [
        (".mcp.json", ".mcp.json", "it declares MCP servers that agentls and other tools start"),
        (".vscode/tasks.json", ".vscode", "it configures VS Code"),
        (".claude/settings.json", ".claude", "it configures Claude Code"),
        ("deep/dir/AGENTS.md", "deep/dir/AGENTS.md", "it instructs coding agents"),
    ],
)
async def test_a_protected_file_the_command_creates_is_removed(
    bwrap: str, tmp_path: Path, rel: str, named: str, why: str
) -> None:
    result = await run_cmd(tmp_path, f"mkdir -p $(dirname {rel}) && echo planted > {rel}")
    assert result.success, result.output
    assert not (tmp_path / named).exists()
    assert f"The command created {named}, which commands may not create: {why}" in result.output
    assert "It was removed." in result.output
    assert "Files changed" not in result.output  # nothing of it is left


async def test_git_init_in_a_workspace_without_git_is_undone(bwrap: str, tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, "git init -q && echo '[core]' >> .git/config")
    assert result.success, result.output
    assert not (tmp_path / ".git").exists()
    assert "The command created .git, which commands may not create" in result.output


async def test_a_nested_repository_the_command_creates_loses_its_git_directory(
    bwrap: str, repo: Path
) -> None:
    """The changes probe never sees inside a .git: the walk after the command does."""
    result = await run_cmd(repo, "mkdir -p vendor/lib && git init -q vendor/lib && echo ok")
    assert result.success, result.output
    assert (repo / "vendor" / "lib").is_dir()
    assert not (repo / "vendor" / "lib" / ".git").exists()
    assert "The command created vendor/lib/.git" in result.output


async def test_a_cancelled_command_still_loses_what_it_planted(bwrap: str, tmp_path: Path) -> None:
    task = asyncio.create_task(
        run_cmd(tmp_path, "echo '{}' > .mcp.json && touch started && sleep 600")
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not (tmp_path / ".mcp.json").exists()


# -- ordinary work ---------------------------------------------------------------------------
async def test_ordinary_work_still_works(bwrap: str, repo: Path) -> None:
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "AGENTS.md").write_text("docs rules\n")
    command = (
        "mkdir -p build .pytest_cache __pycache__ && echo out > build/out.txt"
        " && echo cache > .pytest_cache/v && echo pyc > __pycache__/app.pyc"
        " && echo 'x = 2' > src/app.py && mv docs documentation && echo done"
    )
    result = await run_cmd(repo, command)
    assert result.success, result.output
    assert (repo / "build" / "out.txt").read_text() == "out\n"
    assert (repo / ".pytest_cache" / "v").exists() and (repo / "__pycache__" / "app.pyc").exists()
    assert (repo / "src" / "app.py").read_text() == "x = 2\n"
    # Moving a directory takes its AGENTS.md along: the user's own file, unchanged.
    assert (repo / "documentation" / "AGENTS.md").read_text() == "docs rules\n"
    assert "commands may not" not in result.output


# -- without a sandbox -------------------------------------------------------------------------
async def test_without_a_sandbox_a_created_protected_file_is_still_removed(
    tmp_path: Path,
) -> None:
    (tmp_path / "AGENTS.md").write_text("original\n")
    result = await run_cmd(
        tmp_path, "echo '{}' > .mcp.json && echo more >> AGENTS.md", sandbox="off"
    )
    assert result.success, result.output
    assert not (tmp_path / ".mcp.json").exists()
    assert "The command created .mcp.json, which commands may not create" in result.output
    # An edit of an existing one cannot be told from an attack: kept, and named.
    assert (tmp_path / "AGENTS.md").read_text() == "original\nmore\n"
    assert "The command changed protected files" in result.output
    assert "AGENTS.md (it instructs coding agents)" in result.output
    assert "The command ran without a sandbox" in result.output


# -- the search for protected paths ------------------------------------------------------------
def test_the_search_skips_dependency_directories_and_stops_at_its_cap(tmp_path: Path) -> None:
    for rel in ("a/AGENTS.md", "a/b/CLAUDE.md", "node_modules/x/AGENTS.md", "c/.git/config"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / ".mcp.json").write_text("{}")
    found = find_protected(tmp_path)
    assert found.complete
    assert found.paths == (".mcp.json", "a/AGENTS.md", "c/.git", "a/b/CLAUDE.md")
    cut = find_protected(tmp_path, max_dirs=2)  # the root and a/ only
    assert not cut.complete
    assert cut.paths == (".mcp.json", "a/AGENTS.md")
