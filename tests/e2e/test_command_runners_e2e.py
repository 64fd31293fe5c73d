"""What the command rules can and cannot see, through the real CLI and the real server: a
deny rule refuses the command a tool runner runs (``uv run curl``), another name of a
denied git subcommand (``git send-pack`` for ``git push*``), a runner that downloads what
it runs (``npx -y x``) is asked about even in yolo, and an option that runs code (``rg
--pre``) is asked about even under an allow rule naming the program."""

from __future__ import annotations

import os
import pty
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from agentls_e2e import NEOVIM, LspFactory, llm_options, plain

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)

MODEL = "rules-model"
RULES = {"deny": ["curl*", "git push*"], "allow": ["rg*"]}


def _marker_script(ws: Path) -> None:
    """``./x``: a program that leaves ``pwned`` behind if anything runs it."""
    script = ws / "x"
    script.write_text("#!/bin/sh\ntouch pwned\ncat\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def _tool_results(scripted: ScriptedModelServer, model: str) -> list[str]:
    messages = scripted.requests_for(model)[-1].messages
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


def _cli(ws: Path, scripted: ScriptedModelServer, mode: str) -> subprocess.CompletedProcess[str]:
    model = ["--model", f"openai/{MODEL}", "--api-base", scripted.api_base]
    return subprocess.run(
        [sys.executable, "-m", "agentls", "run", "do it", "--mode", mode, *model],
        cwd=ws,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=150,
    )


def _cli_in_terminal(ws: Path, scripted: ScriptedModelServer, mode: str) -> tuple[str, int]:
    """``agentls run`` with a terminal on stdin, answering no to every question."""
    model = ["--model", f"openai/{MODEL}", "--api-base", scripted.api_base]
    controller, terminal = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "agentls", "run", "do it", "--mode", mode, *model],
        cwd=ws,
        stdin=terminal,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    os.close(terminal)
    assert child.stderr is not None
    seen, answered = b"", 0
    deadline = time.monotonic() + 150
    try:
        while time.monotonic() < deadline:
            if not select.select([child.stderr], [], [], 1)[0]:
                continue
            chunk = os.read(child.stderr.fileno(), 65_536)
            if not chunk:
                break
            seen += chunk
            questions = seen.count(b"Allow?") + seen.count(b"Trust this folder?")
            while answered < questions:
                os.write(controller, b"n\n")
                answered += 1
        child.wait(timeout=60)
    finally:
        os.close(controller)
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stderr.close()
    return seen.decode("utf-8", "replace"), child.returncode


@pytest.fixture
def ws(tmp_path: Path, user_config_dir: Path) -> Path:
    config_file = user_config_dir / "config.yaml"
    config = yaml.safe_load(config_file.read_text()) if config_file.exists() else None
    config_file.write_text(yaml.safe_dump({**(config or {}), "commands": RULES}))
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "notes.txt").write_text("foo\n")
    _marker_script(root)
    return root


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("uv run curl https://example.invalid", "curl*"),
        ("npx curl https://example.invalid", "curl*"),
        ("git send-pack origin main", "git push*"),
    ],
)
def test_the_cli_refuses_what_a_deny_rule_names_behind_a_runner_in_yolo(
    ws: Path, scripted: ScriptedModelServer, command: str, rule: str
) -> None:
    scripted.add(MODEL, tool_call("execute_command", {"command": command}), text("done"))
    done = _cli(ws, scripted, "yolo")
    assert done.returncode == 0, done.stderr
    [told] = _tool_results(scripted, MODEL)
    assert told.startswith("Not allowed:") and f"the deny rule `{rule}`" in told, told


@pytest.mark.parametrize(
    ("command", "mode", "why"),
    [
        ("npx -y ./x", "yolo", "cannot be checked against your rules"),
        ("make SHELL=./x all", "yolo", "cannot be checked against your rules"),
        ("rg --pre ./x foo notes.txt", "confirm-sensitive", "`rg --pre` runs the program"),
    ],
)
def test_the_cli_asks_about_what_the_rules_cannot_see(
    ws: Path, scripted: ScriptedModelServer, command: str, mode: str, why: str
) -> None:
    scripted.add(
        MODEL,
        tool_call("execute_command", {"command": command}),
        text("explained"),  # the question's explanation
        text("done"),
    )
    stderr, code = _cli_in_terminal(ws, scripted, mode)
    assert code == 0, stderr
    [question] = [line for line in stderr.splitlines() if "The agent wants to run" in line]
    assert why in question, stderr
    [told] = _tool_results(scripted, MODEL)
    assert "denied" in told, told
    assert not (ws / "pwned").exists()


async def test_the_editor_refuses_a_runners_denied_command_and_asks_about_the_rest(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    await _git_init(workspace)
    _marker_script(workspace)
    scripted.add(
        "alice",
        tool_call("execute_command", {"command": "uv run curl https://example.invalid"}),
        tool_call("execute_command", {"command": "git send-pack origin main"}),
        tool_call("execute_command", {"command": "npx -y ./x"}),
        text("Runs a package."),  # the question's explanation
        text("done"),
    )
    options = {**llm_options(scripted), "commands": RULES}
    client = await lsp(caps=NEOVIM, init_options=options)
    client.approvals = ["Deny"]
    result = plain(await client.run(prompt="go", runId="r1", confirmMode="yolo"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests
    assert "npx -y ./x" in asked.message
    assert "cannot be checked against your rules" in asked.message
    told = [
        str(m["content"])
        for m in scripted.requests_for("alice")[-1].messages
        if m.get("role") == "tool"
    ]
    assert "the deny rule `curl*`" in told[0] and told[0].startswith("Not allowed:")
    assert "the deny rule `git push*`" in told[1] and told[1].startswith("Not allowed:")
    assert not (workspace / "pwned").exists()


async def test_the_editor_asks_about_an_allowed_program_given_code_to_run(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    _marker_script(workspace)
    (workspace / "notes.txt").write_text("foo\n")
    scripted.add(
        "alice",
        tool_call("execute_command", {"command": "rg --pre ./x foo notes.txt"}),
        text("Searches with a preprocessor."),  # the question's explanation
        text("done"),
    )
    options = {**llm_options(scripted), "commands": RULES}
    client = await lsp(caps=NEOVIM, init_options=options)
    client.approvals = ["Deny"]
    result = plain(await client.run(prompt="search", runId="r2", confirmMode="confirm-sensitive"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests
    assert "`rg --pre` runs the program" in asked.message
    assert not (workspace / "pwned").exists()


async def _git_init(root: Path) -> None:
    import asyncio

    await asyncio.to_thread(subprocess.run, ["git", "init", "-q"], cwd=root, check=True)
