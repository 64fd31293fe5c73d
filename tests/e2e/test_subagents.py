"""Subagents through every front end, each a real process on the scripted model: the
language server over stdio, ``agentls run`` and ``agentls sessions show``, and ``agentls
acp``. The parent answers on one model and each child on another, so the requests the
scripted server records say whose they are and what each conversation held."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from agentls_e2e import APP_PY, LspFactory, llm_options, plain, run_cli
from test_acp import EditorClient, acp_agent, prompt, start

from agentls.agent.config.agents import READ_ONLY_TOOLS
from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    call,
    text,
    tool_call,
    tool_calls,
)

pytestmark = pytest.mark.timeout(420)

BUILD_PROMPT_START = "You are agentls, a coding agent"
REPORT = "greet is defined in src/app.py:1; nothing calls it."


def tool_names(request: Any) -> list[str]:
    return sorted(t["function"]["name"] for t in request.body.get("tools") or [])


def texts(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages)


def assert_explored_apart(scripted: ScriptedModelServer, parent: str, child: str) -> None:
    """The child's conversation was its own and read-only; the parent read only its
    report, never what the child's tools returned."""
    first = scripted.requests_for(child)[0]
    system = str(first.messages[0]["content"])
    assert not system.startswith(BUILD_PROMPT_START)
    assert first.messages[-1]["role"] == "user"
    assert "Find where greet is defined" in str(first.messages[-1]["content"])
    assert "Look at the app" not in texts(first)
    names = tool_names(first)
    assert names and set(names) <= set(READ_ONLY_TOOLS) - {"delegate", "ask_user"}
    # The child's grep returned the source line; the parent's next request holds the
    # report and not that line.
    assert 'return f"hello {name}"' in texts(scripted.requests_for(child)[1])
    after = texts(scripted.requests_for(parent)[1])
    assert REPORT in after
    assert 'return f"hello {name}"' not in after


def explore_script(scripted: ScriptedModelServer, parent: str, child: str) -> None:
    scripted.add(
        parent,
        tool_call("delegate", {"agent": "explore", "task": "Find where greet is defined."}),
        text("It is in src/app.py."),
    )
    scripted.add(child, tool_call("grep", {"pattern": "hello"}), text(REPORT))


# -- the language server ------------------------------------------------------------------


async def test_lsp_a_search_handed_to_explore_stays_out_of_the_parents_context(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    explore_script(scripted, "sl-parent", "sl-explore")
    options = llm_options(scripted, "sl-parent")
    options["subagents"] = {"explore_model": "openai/sl-explore"}
    client = await lsp(init_options=options)

    result = plain(await client.run(prompt="Look at the app", runId="d1", sessionId="ds"))

    assert result["status"] == "success", result
    assert_explored_apart(scripted, "sl-parent", "sl-explore")
    session = plain(await client.request("agent/session", {"sessionId": "ds"}))
    children = [e for e in session["entries"] if e["type"] == "subagent"]
    assert [(c["agent"], c["status"], c["model"]) for c in children] == [
        ("explore", "success", "openai/sl-explore")
    ]

    # The session goes on: the model reads the report again, the child does not run again.
    scripted.add("sl-parent", text("As explore said: src/app.py."))
    again = plain(await client.run(prompt="Where was it?", runId="d2", sessionId="ds"))
    assert again["status"] == "success"
    assert len(scripted.requests_for("sl-explore")) == 2
    assert REPORT in texts(scripted.requests_for("sl-parent")[2])


async def test_lsp_a_child_from_claude_agents_has_its_narrower_tools_and_its_model(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, trust_folder: Any
) -> None:
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(
        "---\nname: reader\ndescription: Reads one file and summarises it.\n"
        "tools: Read\nmodel: openai/sl-reader\n---\nYou are reader. Read and summarise.\n"
    )
    trust_folder(workspace)
    scripted.add(
        "sl-parent2",
        tool_call("delegate", {"agent": "reader", "task": "Summarise src/app.py."}),
        text("done"),
    )
    scripted.add("sl-reader", text("A greeting function."))
    client = await lsp(init_options=llm_options(scripted, "sl-parent2"))

    result = plain(await client.run(prompt="summarise", runId="r1"))

    assert result["status"] == "success", result
    first = scripted.requests_for("sl-reader")[0]
    assert "You are reader." in str(first.messages[0]["content"])
    assert tool_names(first) == ["read_file"]
    assert "A greeting function." in texts(scripted.requests_for("sl-parent2")[1])


async def test_lsp_stop_during_a_child_stops_the_run(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("sl-parent3", tool_call("delegate", {"agent": "explore", "task": "Find greet."}))
    scripted.add("sl-slow", text("too late", delay=30))
    options = llm_options(scripted, "sl-parent3")
    options["subagents"] = {"explore_model": "openai/sl-slow"}
    client = await lsp(init_options=options)

    run = client.run(prompt="find", runId="st1")
    await client.wait_for(lambda: bool(scripted.requests_for("sl-slow")), what="the child")
    assert plain(await client.request("agent/cancel", {"runId": "st1"})) == {"cancelled": True}
    result = plain(await asyncio.wait_for(run, 30))

    assert result["status"] == "partial"
    assert client.states("st1")[-1] == "aborted"
    assert len(scripted.requests_for("sl-parent3")) == 1


# -- the CLI ------------------------------------------------------------------------------


def cli_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "repo"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text(APP_PY)
    return ws


def test_cli_two_explorers_at_once_and_the_session_lists_them(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump(
            {
                "llm": {"model": "openai/sc-parent", "api_base": scripted.api_base},
                "subagents": {"explore_model": "openai/sc-explore"},
            }
        )
    )
    ws = cli_workspace(tmp_path)
    scripted.add(
        "sc-parent",
        tool_calls(
            call("delegate", {"agent": "explore", "task": "Find where greet is defined."}),
            call("delegate", {"agent": "explore", "task": "Find the README."}),
        ),
        text("Both explored."),
    )
    scripted.add("sc-explore", text("report one"), text("report two"))

    done = run_cli(ws, "run", "Look at the app", "--session", "cs", "--no-stream", "--json")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "success"
    after = texts(scripted.requests_for("sc-parent")[1])
    assert "report one" in after and "report two" in after
    shown = run_cli(ws, "sessions", "show", "cs")
    assert shown.returncode == 0, shown.stderr
    lines = [line.strip() for line in shown.stdout.splitlines()]
    children = [line for line in lines if line.startswith("[subagent explore")]
    assert len(children) == 2
    assert all("on openai/sc-explore: success" in line for line in children)


def test_cli_an_untrusted_folder_cannot_choose_explores_model(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump({"llm": {"model": "openai/su-parent", "api_base": scripted.api_base}})
    )
    ws = cli_workspace(tmp_path)
    (ws / ".agentls.yaml").write_text(
        yaml.safe_dump({"subagents": {"explore_model": "openai/su-costly"}})
    )
    scripted.add(
        "su-parent",
        tool_call("delegate", {"agent": "explore", "task": "Find greet."}),
        text("found (by explore, on my own model)"),
        text("done"),
    )

    done = run_cli(ws, "run", "find greet", "--no-stream")

    assert done.returncode == 0, done.stderr
    assert not scripted.requests_for("su-costly")
    # explore answered on the user's model: three requests on it, the child's between.
    assert len(scripted.requests_for("su-parent")) == 3
    assert "subagents" in done.stderr


# -- ACP ----------------------------------------------------------------------------------


async def test_acp_a_search_handed_to_explore(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump({"subagents": {"explore_model": "openai/sa-explore"}})
    )
    ws = cli_workspace(tmp_path)
    explore_script(scripted, "sa-parent", "sa-explore")
    client = EditorClient()
    async with acp_agent(ws, scripted, "sa-parent", client) as conn:
        session_id = await start(conn, ws)
        assert await prompt(conn, session_id, "Look at the app") == "end_turn"

    assert_explored_apart(scripted, "sa-parent", "sa-explore")
    assert "It is in src/app.py." in client.agent_text()
