"""A worktree run through the CLI in a repository that keeps its git hooks in the working
tree: a sandboxed command of the run tries to rewrite the hook, then agentls commits the
run on the host. No hook runs (as shipped or as rewritten), and no git agentls starts
gets a secret in its environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hooked_repo import STYLES, git, git_spy, make_hooked_repo

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)


def agentls(cwd: Path, extra_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "agentls", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **extra_env},
        timeout=180,
    )


@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_hook_the_run_rewrote_does_not_run_when_agentls_commits(
    tmp_path: Path, scripted: ScriptedModelServer, style: str
) -> None:
    repo = make_hooked_repo(tmp_path / "repo", style, tmp_path / "markers")
    shipped_script = (repo.root / repo.script).read_text()
    spy = git_spy(tmp_path)
    scripted.add(
        "hooks",
        tool_call("execute_command", {"command": repo.rewrite_command()}),
        tool_call("write_file", {"path": "out.txt", "content": "work\n"}),
        text("Done."),
    )
    env = spy.env(os.environ["PATH"])
    model = ["--model", "openai/hooks", "--api-base", scripted.api_base, "--mode", "yolo"]
    done = agentls(repo.root, env, "run", "take the hook over", "--worktree", "h", *model)
    # The hook ran neither as shipped nor as the command wanted it...
    assert repo.hooks_ran() == []
    assert done.returncode == 0, done.stderr
    # ...when agentls's git committed the run on its branch, on the host; the command
    # could not change the hook (a protected path).
    assert git(repo.root, "show", "--name-only", "--format=", "agentls/h").split() == ["out.txt"]
    assert git(repo.root, "show", f"agentls/h:{repo.script}") == shipped_script

    applied = agentls(repo.root, env, "apply", "h", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert (repo.root / "out.txt").read_text() == "work\n"
    assert repo.hooks_ran() == []

    assert len(spy.calls()) > 5, "the spy saw agentls's git"
    assert spy.leaked() == []
