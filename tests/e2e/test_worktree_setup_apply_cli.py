"""A worktree's set-up step (``worktree.setup``, say ``npm ci`` running install scripts)
that plants a protected file, a symbolic link out of the tree and executable bits, then
``agentls apply --yes``: the set-up gets the clean-up every command gets (the protected
file is removed), and apply writes none of the rest without a question of its own, which
``--yes`` does not answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hooked_repo import git

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)

PLANTING_SETUP = (
    "mkdir -p .husky && printf 'touch /tmp/x' > .husky/pre-commit; "
    "printf 'repos: []' > .pre-commit-config.yaml; "
    "ln -s /etc/passwd link-out; "
    "printf 'echo hi' > tool.sh && chmod +x tool.sh; "
    "chmod +x app.py"
)


def agentls(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "agentls", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=180,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def test_what_a_setup_step_plants_is_cleaned_up_or_asked_about_never_under_yes(
    repo: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text(
        "worktree:\n  setup: " + json.dumps(PLANTING_SETUP) + "\n"
    )
    scripted.add(
        "setup",
        tool_call("write_file", {"path": "notes.md", "content": "# Notes\n"}),
        text("Done."),
    )
    model = ["--model", "openai/setup", "--api-base", scripted.api_base, "--mode", "yolo"]
    done = agentls(repo, "run", "go", "--worktree", "s", *model)
    assert done.returncode == 0, done.stderr
    # The clean-up after the set-up step removed the protected files it created...
    assert "created .husky" in done.stderr and "created .pre-commit-config.yaml" in done.stderr
    on_branch = git(repo, "show", "--name-only", "--format=", "agentls/s").split()
    assert ".husky/pre-commit" not in on_branch and ".pre-commit-config.yaml" not in on_branch
    # ...and kept the rest, which the run committed.
    assert {"link-out", "tool.sh", "app.py", "notes.md"} <= set(on_branch)

    applied = agentls(repo, "apply", "s", "--yes")
    assert applied.returncode == 0, applied.stderr
    # The text change is applied; each of the others is named with what it is...
    assert (repo / "notes.md").read_text() == "# Notes\n"
    assert "link-out: a symbolic link to '/etc/passwd' (outside the tree)" in applied.stdout
    assert "tool.sh: a new executable file" in applied.stdout
    assert "app.py: made executable" in applied.stdout
    assert "not applied: app.py, link-out, tool.sh" in applied.stderr
    # ...and none of them is written: --yes does not answer their question.
    assert not os.path.lexists(repo / "link-out")
    assert not (repo / "tool.sh").exists()
    assert not os.access(repo / "app.py", os.X_OK)
    assert not (repo / ".husky").exists() and not (repo / ".pre-commit-config.yaml").exists()
