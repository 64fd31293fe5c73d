"""Calls that go through litellm itself, end to end: every OpenAI-compatible endpoint is
called without it unless ``AGENTLS_LLM_CLIENT=litellm`` says otherwise, so these runs hold
the way back (and every provider that is not OpenAI-compatible) to the same behaviour: a
streamed answer, a tool call, usage, in the terminal and in the language server's model
worker. What reached the model server tells the two clients apart: litellm's OpenAI client
sends its own user agent."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from agentls_e2e import LspFactory, plain, run_cli

from agentls.agent.llm.openai_http import CLIENT_VARIABLE
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(300)


def _clients(scripted: ScriptedModelServer, model: str) -> set[str]:
    return {r.headers.get("user-agent", "") for r in scripted.requests if r.model == model}


def test_the_cli_reaches_the_model_through_litellm_when_asked(
    tmp_path: Path,
    scripted: ScriptedModelServer,
    user_config_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump({"llm": {"model": "openai/viallm", "api_base": scripted.api_base}})
    )
    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / "notes.md").write_text("the notes say hi\n")
    scripted.add("viallm", tool_call("read_file", {"path": "notes.md"}, id="c1"))
    scripted.add("viallm", text("The notes say hi.", chunk_size=4))
    monkeypatch.setenv(CLIENT_VARIABLE, "litellm")

    ran = run_cli(ws, "run", "what do the notes say?", "--output-format", "json")

    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "The notes say hi." in ran.stdout
    agents = _clients(scripted, "viallm")
    assert agents and all("OpenAI/Python" in agent for agent in agents), agents


def test_the_cli_reaches_an_openai_compatible_endpoint_without_litellm(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump({"llm": {"model": "openai/direct", "api_base": scripted.api_base}})
    )
    ws = tmp_path / "repo"
    ws.mkdir()
    scripted.add("direct", text("Hello."))

    ran = run_cli(ws, "run", "say hello", "--output-format", "json")

    assert ran.returncode == 0, ran.stderr[-2000:]
    agents = _clients(scripted, "direct")
    assert agents and not any("OpenAI/Python" in agent for agent in agents), agents


async def test_the_servers_model_worker_goes_through_litellm_when_asked(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "alice",
        tool_call("read_file", {"path": "src/app.py"}, id="call-1"),
        text("It greets.", chunk_size=3),
    )
    client = await lsp(env={CLIENT_VARIABLE: "litellm"})
    result = plain(await client.run(prompt="read it", runId="l1", maxSteps=5))
    assert result["status"] == "success", result
    assert result["output"] == "It greets."
    assert result["usage"]["total_tokens"] > 0
    assert "".join(c["text"] for c in client.of("agent/stream", "l1")) == "It greets."
    agents = _clients(scripted, "alice")
    assert agents and all("OpenAI/Python" in agent for agent in agents), agents
