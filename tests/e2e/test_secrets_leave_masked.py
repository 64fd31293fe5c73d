"""A command prints a secret of every well-known shape, and the user's key from a variable
whose name does not look secret (``llm.api_key_env: MY_LLM``): none of it reaches the
model, the session file, `--json` or the editor; the key's variable never reaches the
command. Through the real CLI and the real language server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from agentls_e2e import NEOVIM, LspFactory, plain
from secret_samples import all_samples_text, leaked

from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    key_fingerprint,
    text,
    tool_call,
)

pytestmark = pytest.mark.timeout(240)

MODEL = "user-model"
#: The user's key, in a variable whose name says nothing of secrets.
KEY_VARIABLE = "MY_LLM"
KEY_VALUE = "plain-looking-llm-key-0042"
COMMAND = f'cat leak.txt; echo "[${KEY_VARIABLE}]"; env | grep -c {KEY_VARIABLE} || true'
#: What the model answers at the end: as if it repeated what it had seen.
ANSWER = "I found these:\n" + all_samples_text() + KEY_VALUE + "\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "leak.txt").write_text(all_samples_text() + KEY_VALUE + "\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def script(model: ScriptedModelServer) -> None:
    model.add(MODEL, tool_call("execute_command", {"command": COMMAND}), text(ANSWER))


def told_the_model(model: ScriptedModelServer) -> str:
    """Every tool result the model was sent."""
    messages = model.requests_for(MODEL)[-1].messages
    return "\n".join(str(m["content"]) for m in messages if m["role"] == "tool")


def assert_nothing_leaked(where: str, text_seen: str) -> None:
    assert leaked(text_seen) == [], f"{where} holds secrets"
    assert KEY_VALUE not in text_seen, f"{where} holds the key"


def the_session_file(root: Path) -> str:
    [path] = (root / ".agentls" / "sessions").glob("*.jsonl")
    return path.read_text()


def test_the_cli_masks_every_shape_in_the_model_session_and_json(
    bwrap: str, project: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    config = {
        "llm": {
            "model": f"openai/{MODEL}",
            "api_base": scripted.api_base,
            "api_key_env": KEY_VARIABLE,
        }
    }
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    script(scripted)
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", KEY_VARIABLE: KEY_VALUE}
    done = subprocess.run(
        [sys.executable, "-m", "agentls.cli", "run", "look", "--json", "--mode", "yolo"],
        cwd=project,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    # The key did reach the model's endpoint, as the API key and nowhere else.
    assert scripted.requests_for(MODEL)[0].auth_sha256 == key_fingerprint(KEY_VALUE)

    told = told_the_model(scripted)
    assert "[]" in told  # the key's variable was not in the command's environment
    assert_nothing_leaked("what the model was sent", told)
    assert_nothing_leaked("the session file", the_session_file(project))
    result = json.loads(done.stdout)
    assert result["status"] == "success" and "***" in result["output"]
    assert_nothing_leaked("--json", done.stdout)
    assert_nothing_leaked("stderr", done.stderr)


async def test_the_language_server_masks_every_shape_in_the_model_session_and_notifications(
    bwrap: str, lsp: LspFactory, project: Path, scripted: ScriptedModelServer
) -> None:
    script(scripted)
    options = {
        "llm": {
            "model": f"openai/{MODEL}",
            "api_base": scripted.api_base,
            "api_key_env": KEY_VARIABLE,
            "retries": 0,
        }
    }
    client = await lsp(
        caps=NEOVIM, init_options=options, root=project, env={KEY_VARIABLE: KEY_VALUE}
    )
    result = plain(await client.run(prompt="look", runId="k1", confirmMode="yolo"))
    assert result["status"] == "success", result
    assert scripted.requests_for(MODEL)[0].auth_sha256 == key_fingerprint(KEY_VALUE)

    told = told_the_model(scripted)
    assert "[]" in told
    assert_nothing_leaked("what the model was sent", told)
    assert_nothing_leaked("the session file", the_session_file(project))
    assert "***" in str(result["output"])
    assert_nothing_leaked("the run's result", json.dumps(result))
    assert_nothing_leaked("the notifications", json.dumps(client.events))
    assert_nothing_leaked("the log", json.dumps([m.message for m in client.log_messages]))
