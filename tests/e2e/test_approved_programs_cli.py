"""What the user approved in a trusted repository, through the headless CLI: the MCP
server's header values, the script it runs and its env file, and a hook's script. The
repository (or a command run in it) changes one after the approval: nothing starts until
the user approves again, and the question shows what changed. An approved script is a
protected path: editing it asks. A workspace's hooks are asked about in the terminal as
its MCP servers are, and a refusal lasts as long as the run that heard it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from agentls_e2e import run_cli, run_in_terminal, write_prompt_hook

from agentls.agent.config.trust import TrustStore
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)

MODEL = "user-model"
SECRET_VARIABLE = "APPROVED_TEST_SECRET_TOKEN"
SECRET_VALUE = "user-secret-value-0123456789"


@pytest.fixture(autouse=True)
def user_model(scripted: ScriptedModelServer, user_config_dir: Path) -> ScriptedModelServer:
    config = {"llm": {"model": f"openai/{MODEL}", "api_base": scripted.api_base, "retries": 0}}
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    return scripted


def agentls(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_API_KEY": "user-own-key",
        "FIRST_TOKEN": "first-value",
        SECRET_VARIABLE: SECRET_VALUE,
    }
    return subprocess.run(
        [sys.executable, "-m", "agentls.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=150,
    )


def run(root: Path, model: ScriptedModelServer, *extra: str) -> subprocess.CompletedProcess[str]:
    model.add(MODEL, text("hi"))
    done = agentls(root, "run", "what is this?", *extra)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    return root


def write_marker_server(root: Path, marker: Path, **entry: object) -> None:
    """An "MCP server" ``python3 srv.py`` that only proves it started."""
    (root / "srv.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    server = {"type": "stdio", "command": sys.executable, "args": ["srv.py"], **entry}
    (root / ".vscode").mkdir(exist_ok=True)
    (root / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"srv": server}}))


def approve_all(root: Path) -> None:
    assert agentls(root, "trust").returncode == 0
    done = agentls(root, "mcp", "approve", "--all")
    assert done.returncode == 0, done.stderr


def test_a_changed_script_does_not_start_until_approved_again(
    repo: Path, tmp_path: Path, user_model: ScriptedModelServer
) -> None:
    marker = tmp_path / "started"
    write_marker_server(repo, marker)
    approve_all(repo)
    run(repo, user_model)
    assert marker.exists()
    marker.unlink()

    script = repo / "srv.py"
    script.write_text(script.read_text() + "import os  # and now something else\n")
    done = run(repo, user_model)
    assert not marker.exists()
    assert "not approved in this form" in done.stderr
    listing = agentls(repo, "mcp", "list")
    assert "srv  (.vscode/mcp.json)  changed since you approved it" in listing.stdout
    assert "runs or reads workspace file srv.py (sha256 " in listing.stdout

    assert agentls(repo, "mcp", "approve", "srv").returncode == 0
    run(repo, user_model)
    assert marker.exists()


def test_a_changed_env_file_does_not_start_until_approved_again(
    repo: Path, tmp_path: Path, user_model: ScriptedModelServer
) -> None:
    marker = tmp_path / "started"
    (repo / ".env").write_text("MODE=safe\n")
    write_marker_server(repo, marker, envFile=".env")
    approve_all(repo)
    run(repo, user_model)
    assert marker.exists()
    marker.unlink()

    (repo / ".env").write_text("MODE=safe\nPYTHONSTARTUP=/tmp/evil.py\n")
    done = run(repo, user_model)
    assert not marker.exists()
    assert "not approved in this form" in done.stderr
    listing = agentls(repo, "mcp", "list").stdout
    assert "env file: .env (sha256 " in listing and "sets MODE, PYTHONSTARTUP" in listing


class _Recorder(BaseHTTPRequestHandler):
    seen: list[dict[str, str]]

    def do_POST(self) -> None:
        self.seen.append(dict(self.headers))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """An HTTP endpoint that records the headers of every request it gets."""
    seen: list[dict[str, str]] = []
    handler = type("Recorder", (_Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_changed_header_value_is_asked_about_and_the_endpoint_gets_nothing(
    repo: Path, user_model: ScriptedModelServer, endpoint: tuple[str, list[dict[str, str]]]
) -> None:
    url, seen = endpoint
    entry = {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${FIRST_TOKEN}"}}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"remote": entry}}))
    approve_all(repo)
    listing = agentls(repo, "mcp", "list").stdout
    assert "header Authorization: Bearer ${env:FIRST_TOKEN}  (reads your $FIRST_TOKEN)" in listing
    run(repo, user_model)
    assert any(h.get("Authorization") == "Bearer first-value" for h in seen), seen
    seen.clear()

    # Same header name, another of the user's variables: the approval no longer holds.
    entry["headers"] = {"Authorization": f"Bearer ${{{SECRET_VARIABLE}}}"}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"remote": entry}}))
    done = run(repo, user_model)
    assert seen == []
    assert "not approved in this form" in done.stderr
    assert SECRET_VALUE not in done.stderr + done.stdout
    listing = agentls(repo, "mcp", "list").stdout
    assert f"(reads your ${SECRET_VARIABLE})" in listing


def prompt_sent(model: ScriptedModelServer) -> str:
    messages = model.requests_for(MODEL)[-1].messages
    return "\n".join(str(m["content"]) for m in messages if m["role"] == "user")


def test_a_hook_whose_script_changed_does_not_run_until_approved_again(
    repo: Path, user_model: ScriptedModelServer
) -> None:
    write_prompt_hook(repo, "HOOK-V1")
    assert agentls(repo, "trust").returncode == 0
    assert agentls(repo, "hooks", "approve").returncode == 0
    run(repo, user_model)
    assert "HOOK-V1" in prompt_sent(user_model)

    (repo / ".agentls" / "hook.sh").write_text("echo HOOK-V2\n")
    done = run(repo, user_model)
    assert "HOOK-V2" not in prompt_sent(user_model)
    assert "changed since you approved them" in done.stderr
    listing = agentls(repo, "hooks", "list").stdout
    assert "runs or reads workspace file .agentls/hook.sh (sha256 " in listing


def test_editing_an_approved_script_asks_even_in_yolo(
    repo: Path, tmp_path: Path, user_model: ScriptedModelServer
) -> None:
    write_marker_server(repo, tmp_path / "started")
    approve_all(repo)
    before = (repo / "srv.py").read_text()
    edit = {"path": "srv.py", "old_str": "import pathlib", "new_str": "import os, pathlib"}
    user_model.add(MODEL, tool_call("edit_file", edit))
    run(repo, user_model, "--mode", "yolo")
    assert (repo / "srv.py").read_text() == before
    messages = user_model.requests_for(MODEL)[-1].messages
    [result] = [str(m["content"]) for m in messages if m["role"] == "tool"]
    assert "no terminal" in result, result  # asked, and nobody could answer: refused


HOOKS_QUESTION = "Allow the hooks of .agentls/hooks.json to run? [y/N]"


def test_a_hook_is_asked_about_in_the_terminal_and_runs_only_once_allowed(
    repo: Path, user_model: ScriptedModelServer
) -> None:
    write_prompt_hook(repo, "HOOK-RAN")
    TrustStore().set_trusted(repo, True)
    user_model.add(MODEL, text("one"))
    asked, code = run_in_terminal(repo, "run", "hi", answers=[(HOOKS_QUESTION, "n")])
    assert code == 0
    assert "Declared in .agentls/hooks.json:" in asked
    assert 'UserPromptSubmit: bash "$CLAUDE_PROJECT_DIR"/.agentls/hook.sh' in asked
    assert "runs or reads workspace file .agentls/hook.sh (sha256 " in asked
    assert "HOOK-RAN" not in prompt_sent(user_model)
    assert TrustStore().approved_digest(repo, "hooks", ".agentls/hooks.json") is None

    # The refusal lived with that run (the CLI's folder engine): the next run asks again,
    # and allowed, the hook runs.
    user_model.add(MODEL, text("two"))
    _, code = run_in_terminal(repo, "run", "hi", answers=[(HOOKS_QUESTION, "y")])
    assert code == 0
    assert "HOOK-RAN" in prompt_sent(user_model)

    # Stored like `agentls hooks approve`: a run without a terminal obeys it unasked.
    user_model.add(MODEL, text("three"))
    done = run_cli(repo, "run", "again")
    assert done.returncode == 0, done.stderr
    assert "HOOK-RAN" in prompt_sent(user_model)
    assert "Allow the hooks" not in done.stderr


def test_without_a_terminal_a_hook_is_not_asked_about_and_the_run_names_the_command(
    repo: Path, user_model: ScriptedModelServer
) -> None:
    write_prompt_hook(repo, "HOOK-RAN")
    TrustStore().set_trusted(repo, True)
    done = run(repo, user_model)
    assert "Allow the hooks" not in done.stderr
    assert "the hooks of .agentls/hooks.json do not run: not approved" in done.stderr
    assert f"agentls hooks approve --workspace {repo}" in done.stderr
    assert "HOOK-RAN" not in prompt_sent(user_model)
