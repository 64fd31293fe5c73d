"""A workspace's hooks asked about in the terminal, as its MCP servers are: ``agentls run``
in a trusted folder shows what the hooks run (each command, each script with its
fingerprint) and asks y/N; the hooks run only once allowed. A refusal lasts as long as the
run that heard it (the CLI's folder engine): the next run asks again. Without a terminal
nobody is asked, and the run names the command that approves them."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from agentls_e2e import run_cli

from agentls.agent.llm.scripted_server import ScriptedModelServer, text
from agentls.agent.trust import TrustStore

pytestmark = pytest.mark.timeout(240)

MODEL = "user-model"
QUESTION = "Allow the hooks of .agentls/hooks.json to run? [y/N]"


@pytest.fixture(autouse=True)
def user_model(scripted: ScriptedModelServer, user_config_dir: Path) -> ScriptedModelServer:
    config = {"llm": {"model": f"openai/{MODEL}", "api_base": scripted.api_base, "retries": 0}}
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    return scripted


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".agentls").mkdir(parents=True)
    (root / ".agentls" / "hook.sh").write_text("echo HOOK-RAN\n")
    command = 'bash "$CLAUDE_PROJECT_DIR"/.agentls/hook.sh'
    table = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}
    (root / ".agentls" / "hooks.json").write_text(json.dumps({"hooks": table}))
    TrustStore().set_trusted(root, True)
    return root


def run_in_terminal(root: Path, answer: str) -> str:
    """``agentls run`` with a terminal on stdin, answering the hooks question; what it
    wrote on stderr up to the question."""
    controller, terminal = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "agentls.cli", "run", "hi"],
        cwd=root,
        stdin=terminal,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    os.close(terminal)
    try:
        assert child.stderr is not None
        asked = read_until(child.stderr.fileno(), QUESTION)
        os.write(controller, answer.encode() + b"\n")
        assert child.wait(timeout=180) == 0
    finally:
        os.close(controller)
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stderr is not None:
            child.stderr.close()
    return asked


def read_until(fd: int, marker: str, timeout: float = 120) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while marker.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"{marker!r} never came: {seen[-2000:]!r}")
        chunk = os.read(fd, 65_536)
        if not chunk:
            raise AssertionError(f"closed before {marker!r}: {seen[-2000:]!r}")
        seen += chunk
    return seen.decode("utf-8", "replace")


def prompt_sent(model: ScriptedModelServer) -> str:
    messages = model.requests_for(MODEL)[-1].messages
    return "\n".join(str(m["content"]) for m in messages if m["role"] == "user")


def test_a_hook_is_asked_about_in_the_terminal_and_runs_only_once_allowed(
    repo: Path, user_model: ScriptedModelServer
) -> None:
    user_model.add(MODEL, text("one"))
    asked = run_in_terminal(repo, "n")
    assert "Declared in .agentls/hooks.json:" in asked
    assert 'UserPromptSubmit: bash "$CLAUDE_PROJECT_DIR"/.agentls/hook.sh' in asked
    assert "runs or reads workspace file .agentls/hook.sh (sha256 " in asked
    assert "HOOK-RAN" not in prompt_sent(user_model)
    assert TrustStore().approved_digest(repo, "hooks", ".agentls/hooks.json") is None

    # The refusal lived with that run: the next one asks again, and allowed, the hook runs.
    user_model.add(MODEL, text("two"))
    run_in_terminal(repo, "y")
    assert "HOOK-RAN" in prompt_sent(user_model)

    # Stored like `agentls hooks approve`: a run without a terminal obeys it unasked.
    user_model.add(MODEL, text("three"))
    done = run_cli(repo, "run", "again")
    assert done.returncode == 0, done.stderr
    assert "HOOK-RAN" in prompt_sent(user_model)
    assert "Allow the hooks" not in done.stderr


def test_without_a_terminal_nobody_is_asked_and_the_run_names_the_command(
    repo: Path, user_model: ScriptedModelServer
) -> None:
    user_model.add(MODEL, text("one"))
    done = run_cli(repo, "run", "hi")
    assert done.returncode == 0, done.stderr
    assert "Allow the hooks" not in done.stderr
    assert "the hooks of .agentls/hooks.json do not run: not approved" in done.stderr
    assert f"agentls hooks approve --workspace {repo}" in done.stderr
    assert "HOOK-RAN" not in prompt_sent(user_model)
