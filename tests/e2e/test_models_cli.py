"""``agentls models`` and ``agentls run``'s refusals before any model call, as a new user
meets them: the real CLI in its own process, the scripted model server listing models
(one without tools) as Ollama and OpenAI-compatible servers do, a port nothing listens on."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from agentls_e2e import run_cli

from agentls.agent.llm.scripted_server import ListedModel, ScriptedModelServer, text

KEY_VARIABLES = ("OPENAI_API_KEY", "LITELLM_API_KEY", "OPENAI_ADMIN_KEY", "ANTHROPIC_API_KEY")


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _user_llm(user_config_dir: Path, **llm: str) -> None:
    lines = ["llm:", *(f"  {key}: {value}" for key, value in llm.items())]
    (user_config_dir / "config.yaml").write_text("\n".join(lines) + "\n")


def test_models_lists_what_the_local_ollama_serves(
    tmp_path: Path, user_config_dir: Path, scripted: ScriptedModelServer
) -> None:
    scripted.list_models(
        ListedModel(name="llama3.1", context_length=131072),
        ListedModel(name="gemma2", tools=False),
    )
    _user_llm(user_config_dir, model="ollama/llama3.1", api_base=scripted.base_url)
    listed = run_cli(tmp_path, "models", "--json")
    assert listed.returncode == 0, listed.stderr
    catalog = json.loads(listed.stdout)
    assert catalog["current"] == "ollama/llama3.1"
    assert catalog["problems"] == []
    models = {m["id"]: m for m in catalog["models"]}
    assert list(models) == ["ollama/llama3.1", "ollama/gemma2"]
    assert models["ollama/llama3.1"]["contextWindow"] == 131072
    assert models["ollama/gemma2"]["tools"] is False

    table = run_cli(tmp_path, "models")
    assert table.returncode == 0
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["MODEL", "WHERE", "TOOLS", "IMAGES", "CONTEXT", "$/1M", "IN/OUT"]
    assert lines[1].split()[:4] == ["*", "ollama/llama3.1", "local", "yes"]
    assert "no tool calling" in lines[2]


def test_models_names_a_local_server_that_is_down_in_one_line(
    tmp_path: Path, user_config_dir: Path
) -> None:
    base = f"http://127.0.0.1:{_free_port()}/v1"
    _user_llm(user_config_dir, model="openai/qwen", api_base=base)
    listed = run_cli(tmp_path, "models")
    assert listed.returncode == 0
    assert listed.stderr.splitlines() == [
        f"agentls: warning: the model server at {base} did not answer: Connection refused"
    ]
    assert "openai/qwen" in listed.stdout


def test_run_without_a_key_says_so_before_any_call(
    tmp_path: Path, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Were the call made, litellm would send it to the scripted server (OPENAI_API_BASE).
    monkeypatch.setenv("OPENAI_API_BASE", scripted.api_base)
    scripted.add("alice", text("hello"))
    done = run_cli(tmp_path, "run", "say hi", "--model", "openai/alice")
    assert done.returncode == 1
    assert scripted.requests == []
    [line] = [line for line in done.stderr.splitlines() if line.startswith("[")]
    assert line.startswith("[error] no API key for openai/alice: set $OPENAI_API_KEY")
    assert "Traceback" not in done.stderr
    assert "retrying" not in done.stderr
    assert done.stdout.strip() == line.removeprefix("[error] ")

    # The same run with the key goes to the model: the setting above was the only fault.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    answered = run_cli(tmp_path, "run", "say hi", "--model", "openai/alice")
    assert answered.returncode == 0, answered.stderr
    assert len(scripted.requests) == 1


def test_run_with_an_unknown_model_names_the_close_ones(tmp_path: Path) -> None:
    done = run_cli(tmp_path, "run", "say hi", "--model", "claude-sonet-4-5")
    assert done.returncode == 1
    [line] = [line for line in done.stderr.splitlines() if line.startswith("[")]
    assert line.startswith("[error] unknown model 'claude-sonet-4-5'")
    assert "did you mean claude-sonnet-4-5" in line
    assert "`agentls models`" in line


def test_run_against_a_local_server_that_is_down(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{_free_port()}/v1"
    done = run_cli(tmp_path, "run", "say hi", "--model", "openai/qwen", "--api-base", base)
    assert done.returncode == 1
    [line] = [line for line in done.stderr.splitlines() if line.startswith("[")]
    assert line == (
        f"[error] the model server at {base} does not answer (connection refused): start it "
        "(Ollama: `ollama serve`; LM Studio: its local server), or change llm.api_base"
    )


def test_a_run_on_a_priced_model_says_what_it_cost(
    tmp_path: Path, user_config_dir: Path, scripted: ScriptedModelServer
) -> None:
    """The CLI calls litellm in its own process: its runs are priced as the language
    server's (the model worker's) are, from litellm's price list."""
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    scripted.add("gpt-4o-mini", text("Priced.", usage=usage), text("Again.", usage=usage))
    _user_llm(user_config_dir, model="openai/gpt-4o-mini", api_base=scripted.api_base)
    done = run_cli(tmp_path, "run", "hello", "--json")
    assert done.returncode == 0, done.stderr
    cost = json.loads(done.stdout)["usage"]["cost"]
    assert cost > 0  # litellm's price of 1000 + 100 tokens of gpt-4o-mini
    shown = run_cli(tmp_path, "run", "hello again")
    assert shown.returncode == 0, shown.stderr
    assert "1000 prompt" in shown.stderr and ", cost $" in shown.stderr
