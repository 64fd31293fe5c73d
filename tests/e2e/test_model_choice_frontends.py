"""Choosing the model through every front end, each a real process: ``agent/run``'s
``model`` and ``/model`` over the language server on stdio, ``agentls run --model`` and
``/model`` across CLI processes, ``/model`` in an ACP session and its replay. The
scripted model server records which model each request named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from acp.schema import AgentThoughtChunk, ClientCapabilities, TextContentBlock
from agentls_e2e import LspFactory, llm_options, plain, run_cli
from test_acp import EditorClient, acp_agent, prompt, start

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

# Several agentls processes per test (the CLI's runs, ACP's agent twice): on a loaded
# machine two minutes, the suite's default, is not always enough.
pytestmark = pytest.mark.timeout(420)


def asked(scripted: ScriptedModelServer, queue: str) -> list[str]:
    return [str(r.body["model"]) for r in scripted.requests_for(queue)]


def thoughts(client: EditorClient) -> str:
    return "".join(
        u.content.text
        for u in client.updates
        if isinstance(u, AgentThoughtChunk) and isinstance(u.content, TextContentBlock)
    )


# -- the language server ------------------------------------------------------------------


async def test_agent_run_takes_its_model_and_model_switches_the_session(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("lm-run", text("from the run's model"))
    scripted.add("lm-two", text("from the session's model"))
    scripted.add("alice", text("from the config's model"))
    client = await lsp(init_options=llm_options(scripted, "alice"))

    one = plain(await client.run(prompt="hi", runId="m1", sessionId="ms", model="openai/lm-run"))
    assert one["status"] == "success" and one["model"] == "openai/lm-run"
    assert asked(scripted, "lm-run") == ["lm-run"] and not scripted.requests_for("alice")
    header = [s for s in client.of("agent/status", "m1") if s.get("model")]
    assert [(s["state"], s["model"]) for s in header] == [("preparing", "openai/lm-run")]

    switched = plain(await client.run(prompt="/model openai/lm-two", runId="m2", sessionId="ms"))
    assert switched["status"] == "success" and switched["model"] == "openai/lm-two"
    two = plain(await client.run(prompt="and now?", runId="m3", sessionId="ms"))
    assert two["model"] == "openai/lm-two"
    assert asked(scripted, "lm-two") == ["lm-two"]
    assert not scripted.requests_for("alice")

    commands = plain(await client.request("agent/commands", {}))["commands"]
    assert any(c["name"] == "model" and c["source"] == "built-in" for c in commands)
    session = plain(await client.request("agent/session", {"sessionId": "ms"}))
    answers = [e["model"] for e in session["entries"] if e["type"] == "assistant_message"]
    assert answers == ["openai/lm-run", "openai/lm-two"]
    choices = [e["model"] for e in session["entries"] if e["type"] == "model_choice"]
    assert choices == ["openai/lm-two"]


async def test_in_mixed_mode_the_servers_planner_and_builder_use_their_agents_models(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("lx-plan", text("1. Say hello."))
    scripted.add("lx-build", text("Hello."))
    options = llm_options(scripted, "lx-default")
    options["agents"] = {
        "plan": {"model": "openai/lx-plan"},
        "build": {"model": "openai/lx-build"},
    }
    client = await lsp(init_options=options)

    result = plain(await client.run(prompt="greet", runId="x1", agent="mixed"))

    assert result["status"] == "success" and result["model"] == "openai/lx-build"
    assert asked(scripted, "lx-plan") == ["lx-plan"]
    assert asked(scripted, "lx-build") == ["lx-build"]
    assert not scripted.requests_for("lx-default")
    assert "1. Say hello." in scripted.requests_for("lx-build")[0].messages[-1]["content"]
    header = [s["model"] for s in client.of("agent/status", "x1") if s.get("model")]
    assert header == ["openai/lx-plan", "openai/lx-build"]


# -- the CLI ------------------------------------------------------------------------------


def test_cli_model_wins_over_the_agents_and_model_lasts_across_processes(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump(
            {
                "llm": {"model": "openai/cli-config", "api_base": scripted.api_base},
                "agents": {"build": {"model": "openai/cli-agent"}},
            }
        )
    )
    ws = tmp_path / "repo"
    ws.mkdir()
    for queue in ("cli-agent", "cli-flag", "cli-two"):
        scripted.add(queue, text(f"answered by {queue}"))

    by_agent = run_cli(ws, "run", "hi", "--session", "cs", "--no-stream")
    assert by_agent.returncode == 0, by_agent.stderr
    assert "Model: openai/cli-agent" in by_agent.stderr
    by_flag = run_cli(ws, "run", "again", "--session", "cs", "--model", "openai/cli-flag", "--json")
    assert by_flag.returncode == 0, by_flag.stderr
    assert _json(by_flag.stdout)["model"] == "openai/cli-flag"
    switched = run_cli(ws, "run", "/model openai/cli-two", "--session", "cs")
    assert switched.returncode == 0, switched.stderr
    assert "openai/cli-two" in switched.stdout
    after = run_cli(ws, "run", "and now?", "--session", "cs", "--no-stream")
    assert after.returncode == 0, after.stderr
    assert "Model: openai/cli-two" in after.stderr
    assert asked(scripted, "cli-agent") == ["cli-agent"]
    assert asked(scripted, "cli-flag") == ["cli-flag"]
    assert asked(scripted, "cli-two") == ["cli-two"]
    assert not scripted.requests_for("cli-config")
    shown = run_cli(ws, "run", "/model", "--session", "cs")
    assert "openai/cli-two" in shown.stdout and "agentls models" in shown.stdout
    told = run_cli(ws, "sessions", "show", "cs")
    assert told.returncode == 0, told.stderr
    marks = [line for line in told.stdout.splitlines() if line.startswith("[model")]
    marks += [line for line in told.stdout.splitlines() if line.startswith("[/model")]
    assert marks == [
        "[model: openai/cli-agent]",
        "[model: openai/cli-flag]",
        "[model: openai/cli-two]",
        "[/model: openai/cli-two]",
    ]
    lines = told.stdout.splitlines()
    assert lines.index("[/model: openai/cli-two]") < lines.index("[model: openai/cli-two]")
    assert "> again" in lines and "answered by cli-flag" in lines


def _json(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    return data


# -- ACP ----------------------------------------------------------------------------------


async def test_model_in_an_acp_session_switches_it_and_its_replay_names_both_models(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    scripted.add("acp-m1", text("first"))
    scripted.add("acp-m2", text("second"))
    first = EditorClient()
    async with acp_agent(tmp_path, scripted, "acp-m1", first) as conn:
        session_id = await start(conn, tmp_path)
        assert await prompt(conn, session_id, "hi") == "end_turn"
        assert await prompt(conn, session_id, "/model openai/acp-m2") == "end_turn"
        assert await prompt(conn, session_id, "again") == "end_turn"
    assert asked(scripted, "acp-m1") == ["acp-m1"] and asked(scripted, "acp-m2") == ["acp-m2"]
    said = thoughts(first)
    assert said.index("Model: openai/acp-m1") < said.index("Model: openai/acp-m2")
    assert "Switched: the session's model is now openai/acp-m2" in first.agent_text()

    second = EditorClient()
    async with acp_agent(tmp_path, scripted, "acp-m1", second) as conn:
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        await conn.load_session(cwd=str(tmp_path), session_id=session_id, mcp_servers=[])
        replayed = thoughts(second)
        scripted.add("acp-m2", text("third"))
        assert await prompt(conn, session_id, "still?") == "end_turn"
    assert replayed.index("Model: openai/acp-m1") < replayed.index("/model: openai/acp-m2")
    assert replayed.index("/model: openai/acp-m2") < replayed.index("Model: openai/acp-m2")
    # The choice is in the session: a new process keeps it.
    assert asked(scripted, "acp-m2") == ["acp-m2", "acp-m2"]
