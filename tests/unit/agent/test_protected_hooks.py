"""Git hooks kept in the working tree are protected paths like ``.git/hooks``: the hook
managers' folders and files, and whatever folder the repository's ``core.hooksPath``
names. An edit asks; a command (real execute_command, real bubblewrap) cannot change one,
and one it creates is removed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.exec.sandbox import find_bwrap
from agentls.agent.protected.edits import protected_targets
from agentls.agent.protected.paths import configured_hooks, find_protected, protected_reason
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.exec import ExecuteCommandArgs, ExecuteCommandTool
from agentls.agent.workspace import DiskFileAccess


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


async def run_cmd(root: Path, command: str) -> ToolResult:
    config = AgentConfig.model_validate({"system_prompt": "x"})
    run = RunContext(files=DiskFileAccess(root), config=AppConfig(), run_id="run-1")
    return await ExecuteCommandTool().run(
        ExecuteCommandArgs(command=command), ToolContext(run, agent=config)
    )


@pytest.mark.parametrize(
    "path",
    [
        ".githooks/pre-commit",
        ".husky/pre-commit",
        ".husky/_/husky.sh",
        ".pre-commit-config.yaml",
        "lefthook.yml",
        ".lefthook.yml",
        "lefthook-local.yml",
        "lefthook.yaml",
        ".lefthook/pre-commit/check.sh",
    ],
)
def test_the_hook_managers_places_are_protected(path: str) -> None:
    assert protected_reason(path) is not None
    assert protected_targets([path]) != []


def test_the_configured_hooks_folder_is_protected(repo: Path) -> None:
    assert protected_targets(["tools/hooks/pre-commit"], repo) == []
    git(repo, "config", "core.hooksPath", "tools/hooks")
    assert configured_hooks(repo) == "tools/hooks"
    reasons = protected_targets(["tools/hooks/pre-commit", "./tools/../tools/hooks/x"], repo)
    assert len(reasons) == 1 and "core.hooksPath" in reasons[0]
    assert protected_targets(["tools/other.py"], repo) == []
    (repo / "tools" / "hooks").mkdir(parents=True)
    assert "tools/hooks" in find_protected(repo).paths
    # The repository itself as the hooks folder: the hooks in it, by name.
    git(repo, "config", "core.hooksPath", ".")
    assert protected_targets(["pre-commit"], repo) != []
    assert protected_targets(["app.py"], repo) == []
    # A folder outside the workspace is not the workspace's to protect.
    git(repo, "config", "core.hooksPath", str(repo.parent / "elsewhere"))
    assert configured_hooks(repo) is None


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


needs_bwrap = pytest.mark.skipif(find_bwrap() is None, reason="needs bubblewrap")


@needs_bwrap
async def test_a_command_cannot_rewrite_the_configured_hooks(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", "tools/hooks")
    hook = repo / "tools" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\nexit 0\n")
    result = await run_cmd(repo, "echo 'touch /tmp/pwned' > tools/hooks/pre-commit")
    assert not result.success
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"


@needs_bwrap
async def test_a_hooks_folder_a_command_creates_is_removed(repo: Path) -> None:
    for command in (
        "mkdir -p .husky && echo 'touch /tmp/pwned' > .husky/pre-commit",
        "echo 'repos: []' > .pre-commit-config.yaml",
        "echo 'pre-commit: {}' > lefthook.yml",
    ):
        result = await run_cmd(repo, command)
        assert "commands may not create" in result.output, result.output
    git(repo, "config", "core.hooksPath", ".githooks-custom")
    result = await run_cmd(repo, "mkdir .githooks-custom && echo x > .githooks-custom/pre-push")
    assert "commands may not create" in result.output, result.output
    assert names(repo) == [".agentls", ".git"]
