"""Agents defined in files, through every front end as real processes: ``agentls agents``
and ``agentls run --agent``, the language server's ``agent/agents`` and a run of a file
agent, ACP's modes and a prompt in a file agent's mode. The scripted model server records
what each request carried: the file's prompt, only its tools, its model when trusted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from acp import RequestError
from agentls_e2e import LspFactory, llm_options, plain, run_cli
from test_acp import EditorClient, acp_agent, prompt

from agentls.agent.llm.scripted_server import RecordedRequest, ScriptedModelServer, text

# Several agentls processes per test: on a loaded machine two minutes, the suite's
# default, is not always enough.
pytestmark = pytest.mark.timeout(420)

REVIEWER = """---
name: reviewer
description: Reviews the code for bugs
tools: Read, Grep, WebFetch
model: openai/file-model
color: red
---
You are the reviewer from the file. Report bugs with paths and lines.
"""
BROKEN = "---\ndescription: broken\ntools: [Read\n---\nBody\n"


def with_agent_files(ws: Path) -> Path:
    agents = ws / ".claude" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "reviewer.md").write_text(REVIEWER)
    (agents / "broken.md").write_text(BROKEN)
    return ws


def system_text(request: RecordedRequest) -> str:
    content = request.messages[0]["content"]
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content)
    return str(content)


def tool_names(request: RecordedRequest) -> set[str]:
    return {t["function"]["name"] for t in request.body.get("tools") or []}


def user_config(user_config_dir: Path, scripted: ScriptedModelServer, model: str) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump(
            {"llm": {"model": f"openai/{model}", "api_base": scripted.api_base, "retries": 0}}
        )
    )


# -- the CLI --------------------------------------------------------------------------------


def test_agentls_agents_lists_a_file_agent_with_its_source_and_names_a_broken_file(
    tmp_path: Path,
) -> None:
    ws = with_agent_files(tmp_path / "repo")
    listed = run_cli(ws, "agents", "--json")
    assert listed.returncode == 0, listed.stderr
    agents = {a["name"]: a for a in json.loads(listed.stdout)}
    assert agents["reviewer"] == {
        "name": "reviewer",
        "description": "Reviews the code for bugs",
        "readOnly": True,
        "source": ".claude/agents/reviewer.md",
    }
    assert agents["explore"]["source"] == "built-in" and agents["explore"]["readOnly"]
    assert ".claude/agents/broken.md is not used" in listed.stderr
    assert "line 4" in listed.stderr
    assert "no such tool in agentls, left out: WebFetch" in listed.stderr
    # Untrusted: the file's model is what trusting the folder would restore.
    assert ".claude/agents/reviewer.md's model" in listed.stderr
    table = run_cli(ws, "agents")
    assert any(
        line.startswith("reviewer") and line.endswith("(.claude/agents/reviewer.md)")
        for line in table.stdout.splitlines()
    )


def test_a_cli_run_with_a_file_agent_sends_its_prompt_and_only_its_tools(
    tmp_path: Path,
    scripted: ScriptedModelServer,
    user_config_dir: Path,
    trust_folder: Callable[..., None],
) -> None:
    ws = with_agent_files(tmp_path / "repo")
    user_config(user_config_dir, scripted, "cli-default")
    scripted.add("cli-default", text("no bugs (untrusted)"))
    untrusted = run_cli(ws, "run", "review app.py", "--agent", "reviewer", "--no-stream")
    assert untrusted.returncode == 0, untrusted.stderr
    assert "no bugs (untrusted)" in untrusted.stdout
    (request,) = scripted.requests_for("cli-default")
    assert system_text(request).startswith("You are the reviewer from the file.")
    assert tool_names(request) == {"read_file", "grep", "search_code"}
    assert ".claude/agents/broken.md is not used" in untrusted.stderr

    trust_folder(ws)
    scripted.add("file-model", text("no bugs (trusted)"))
    trusted = run_cli(ws, "run", "review app.py", "--agent", "reviewer", "--no-stream")
    assert trusted.returncode == 0, trusted.stderr
    assert "Model: openai/file-model" in trusted.stderr
    (request,) = scripted.requests_for("file-model")
    assert tool_names(request) == {"read_file", "grep", "search_code"}
    assert len(scripted.requests_for("cli-default")) == 1


# -- the language server ------------------------------------------------------------------


async def test_the_server_lists_a_claude_file_agent_and_runs_it(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    with_agent_files(workspace)
    scripted.add("alice", text("reviewed"))
    client = await lsp(init_options=llm_options(scripted, "alice"))
    agents = {a["name"]: a for a in plain(await client.request("agent/agents", {}))["agents"]}
    assert agents["reviewer"]["source"] == ".claude/agents/reviewer.md"
    assert agents["reviewer"]["readOnly"] is True
    assert agents["build"]["source"] == "built-in" and "explore" in agents

    result = plain(await client.run(prompt="review", runId="f1", sessionId="fs", agent="reviewer"))
    assert result["status"] == "success", result
    (request,) = scripted.requests_for("alice")
    assert system_text(request).startswith("You are the reviewer from the file.")
    assert tool_names(request) == {"read_file", "grep", "search_code"}
    # The broken file is named in the run's log (and agent/notice, for a client showing it).
    assert [m for m in client.log_messages if "[f1]" in m.message and "broken.md" in m.message]

    # A file written while the server runs is read before the next listing and run.
    (workspace / ".agentls" / "agents").mkdir(parents=True)
    (workspace / ".agentls" / "agents" / "tester.md").write_text("You run the tests.\n")
    again = {a["name"] for a in plain(await client.request("agent/agents", {}))["agents"]}
    assert "tester" in again


# -- ACP ------------------------------------------------------------------------------------


async def test_acp_offers_file_agents_as_modes_and_a_prompt_runs_in_the_chosen_one(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = with_agent_files(tmp_path / "repo")
    (ws / "app.py").write_text("x = 1\n")
    scripted.add("acp-files", text("reviewed over ACP"))
    client = EditorClient()
    async with acp_agent(ws, scripted, "acp-files", client) as conn:
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        modes: Any = session.modes
        assert modes.current_mode_id == "build"
        offered = {m.id: m.description for m in modes.available_modes}
        assert "(.claude/agents/reviewer.md)" in offered["reviewer"]
        assert {"build", "plan", "explore", "mixed"} <= set(offered)
        with pytest.raises(RequestError) as refused:
            await conn.set_session_mode(session_id=session.session_id, mode_id="nope")
        assert "unknown mode (agent) 'nope'" in str(refused.value.data)
        await conn.set_session_mode(session_id=session.session_id, mode_id="reviewer")
        assert await prompt(conn, session.session_id, "review app.py") == "end_turn"
    (request,) = scripted.requests_for("acp-files")
    assert system_text(request).startswith("You are the reviewer from the file.")
    assert tool_names(request) == {"read_file", "grep", "search_code"}
    assert "reviewed over ACP" in client.agent_text()
