"""The CI script in a repository that keeps its hooks in the working tree: the agent's
command tries to rewrite the hook, then the script commits the run. No hook runs, no
filter driver of the repository runs, and no git the script starts gets a secret."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hooked_repo import git, git_spy, make_hooked_repo

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "ci" / "run-agent.sh"

pytestmark = pytest.mark.timeout(300)


def test_the_ci_script_commits_without_running_the_repositorys_hooks_or_filters(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    repo = make_hooked_repo(tmp_path / "repo", "githooks", tmp_path / "markers")
    filter_marker = tmp_path / "markers" / "filter-ran"
    git(repo.root, "config", "filter.evil.clean", f"sh -c 'touch {filter_marker}; cat'")
    (repo.root / ".gitattributes").write_text("*.md filter=evil\n")
    git(repo.root, "add", ".gitattributes")
    git(repo.root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "attributes")
    filter_marker.unlink(missing_ok=True)
    spy = git_spy(tmp_path)
    scripted.add(
        "ci",
        tool_call("execute_command", {"command": repo.rewrite_command()}),
        tool_call("write_file", {"path": "docs/usage.md", "content": "# Usage\n"}),
        text("Done."),
    )
    wrapper = tmp_path / "bin" / "agentls"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -P -m agentls "$@"\n')
    wrapper.chmod(0o755)
    done = subprocess.run(
        ["bash", str(SCRIPT)],
        cwd=repo.root,
        env={
            **os.environ,
            **spy.env(os.environ["PATH"]),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "AGENTLS_BIN": str(wrapper),
            "AGENTLS_PROMPT": "Write docs/usage.md",
            "AGENTLS_MODEL": "openai/ci",
            "AGENTLS_API_BASE": scripted.api_base,
            "AGENTLS_BRANCH": "agentls/docs",
            "AGENTLS_OUTPUT_DIR": str(tmp_path / "out"),
        },
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert repo.hooks_ran() == [] and not filter_marker.exists()
    assert done.returncode == 0, done.stderr
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["docs/usage.md"]
    assert len(spy.calls()) > 5
    assert spy.leaked() == []
