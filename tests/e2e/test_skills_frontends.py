"""Agent Skills through every front end, each a real process with the scripted model: a
skill found, catalogued in the system prompt, loaded when the model calls ``load_skill``
and run by ``/name``; a user's skill whose script runs in the sandbox; an untrusted
folder, whose skills are listed with how to trust it but neither offered nor run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from acp import text_block
from acp.schema import AvailableCommandsUpdate
from agentls_e2e import LspFactory, plain, run_cli
from test_acp import EditorClient, acp_agent

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

# Several agentls processes per test: on a loaded machine the suite's default is short.
pytestmark = pytest.mark.timeout(420)

SKILL = """---
name: fill-form
description: Fill a PDF form from a list of fields.
argument-hint: <file>
---
# Fill a form
Read the fields, then fill $ARGUMENTS with scripts/fill.py.
"""
CATALOGUED = "- fill-form: Fill a PDF form from a list of fields."
BODY = "Read the fields, then fill"


def with_skill(root: Path) -> Path:
    folder = root / ".agents" / "skills" / "fill-form"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    return folder


def system_prompt(scripted: ScriptedModelServer, queue: str, index: int = 0) -> str:
    content: str = scripted.requests_for(queue)[index].messages[0]["content"]
    return content


def user_config(directory: Path, scripted: ScriptedModelServer, model: str) -> None:
    (directory / "config.yaml").write_text(
        yaml.safe_dump({"llm": {"model": f"openai/{model}", "api_base": scripted.api_base}})
    )


# -- the CLI ------------------------------------------------------------------------------


def test_cli_catalogues_loads_and_runs_a_skill_in_a_trusted_folder(
    tmp_path: Path,
    scripted: ScriptedModelServer,
    user_config_dir: Path,
    trust_folder: Callable[..., None],
) -> None:
    ws = tmp_path / "repo"
    with_skill(ws)
    trust_folder(ws)
    user_config(user_config_dir, scripted, "cli-sk")
    scripted.add("cli-sk", tool_call("load_skill", {"name": "fill-form"}), text("filled"))
    scripted.add("cli-sk", text("ran it"))

    listed = run_cli(ws, "commands", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["fill-form"]["source"] == ".agents/skills/fill-form/SKILL.md"
    assert rows["fill-form"]["hint"] == "<file>"
    assert "not offered" not in listed.stderr

    done = run_cli(ws, "run", "fill the tax form", "--no-stream")
    assert done.returncode == 0, done.stderr
    first = system_prompt(scripted, "cli-sk")
    assert CATALOGUED in first and BODY not in first
    assert system_prompt(scripted, "cli-sk", 1) == first
    loaded = str(scripted.requests_for("cli-sk")[1].messages[-1])
    assert BODY in loaded and "scripts/fill.py" in loaded

    ran = run_cli(ws, "run", "/fill-form tax.pdf", "--no-stream")
    assert ran.returncode == 0, ran.stderr
    sent = scripted.requests_for("cli-sk")[2].messages[-1]["content"]
    assert "Read the fields, then fill tax.pdf with scripts/fill.py." in sent
    assert "(This is the skill fill-form." in sent


def test_cli_in_an_untrusted_folder_lists_the_skill_with_how_to_trust_and_offers_none(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    ws = tmp_path / "repo"
    with_skill(ws)
    user_config(user_config_dir, scripted, "cli-un")
    scripted.add("cli-un", text("no skill"))

    listed = run_cli(ws, "commands")
    assert listed.returncode == 0, listed.stderr
    assert "/fill-form <file>" in listed.stdout
    assert "this workspace's skills (/fill-form) are not offered to the model nor run" in (
        listed.stderr
    )
    assert f"agentls trust {ws}" in listed.stderr

    done = run_cli(ws, "run", "fill the tax form", "--no-stream")
    assert done.returncode == 0, done.stderr
    assert CATALOGUED not in system_prompt(scripted, "cli-un")
    assert "this workspace's skills (fill-form) are not offered to the model" in done.stderr

    refused = run_cli(ws, "run", "/fill-form tax.pdf", "--no-stream")
    assert refused.returncode != 0
    assert "/fill-form is a skill of this workspace" in refused.stderr
    assert "not trusted" in refused.stderr
    assert len(scripted.requests_for("cli-un")) == 1


def test_cli_a_users_skill_script_runs_in_the_sandbox(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path, bwrap: str
) -> None:
    """The user config directory of the tests lives under /tmp, which the sandbox hides:
    the user's skills folder is bound back, read-only, so its scripts run."""
    folder = user_config_dir / "skills" / "hello"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: hello\ndescription: Say hello.\n---\nRun it.\n")
    (folder / "scripts" / "hello.py").write_text("print('hello from the skill')\n")
    script = folder.resolve() / "scripts" / "hello.py"
    ws = tmp_path / "repo"
    ws.mkdir()
    user_config(user_config_dir, scripted, "cli-script")
    command = f"python3 {script} && touch {folder.resolve()}/written"
    scripted.add("cli-script", tool_call("execute_command", {"command": command}), text("ok"))

    done = run_cli(ws, "run", "say hello", "--no-stream", "--mode", "yolo")

    assert done.returncode == 0, done.stderr
    result = str(scripted.requests_for("cli-script")[1].messages[-1])
    assert "hello from the skill" in result
    assert "Read-only file system" in result and not (folder / "written").exists()
    assert "- hello: Say hello." in system_prompt(scripted, "cli-script")


# -- the language server ------------------------------------------------------------------


async def test_lsp_lists_the_skill_catalogues_it_and_runs_it_by_name(
    lsp: LspFactory,
    workspace: Path,
    scripted: ScriptedModelServer,
    trust_folder: Callable[..., None],
) -> None:
    with_skill(workspace)
    trust_folder(workspace)
    scripted.add("alice", tool_call("load_skill", {"name": "fill-form"}), text("done"))
    scripted.add("alice", text("ran"))
    client = await lsp()

    answer = plain(await client.request("agent/commands", {}))
    by_name = {c["name"]: c for c in answer["commands"]}
    assert by_name["fill-form"] == {
        "name": "fill-form",
        "description": "Fill a PDF form from a list of fields.",
        "hint": "<file>",
        "source": "workspace",
        "path": ".agents/skills/fill-form/SKILL.md",
    }
    assert answer["problems"] == []

    loaded = plain(await client.run(prompt="fill the form", runId="s1", sessionId="ss"))
    assert loaded["status"] == "success", loaded
    assert CATALOGUED in system_prompt(scripted, "alice")
    assert BODY in str(scripted.requests_for("alice")[1].messages[-1])

    ran = plain(await client.run(prompt="/fill-form tax.pdf", runId="s2", sessionId="ss2"))
    assert ran["status"] == "success", ran
    assert "fill tax.pdf with scripts/fill.py" in str(scripted.requests_for("alice")[2].messages)


async def test_lsp_in_an_untrusted_folder_names_the_skill_and_refuses_to_run_it(
    lsp: LspFactory, workspace: Path, scripted: ScriptedModelServer
) -> None:
    with_skill(workspace)
    scripted.add("alice", text("no skill"))
    client = await lsp()

    answer = plain(await client.request("agent/commands", {}))
    assert "fill-form" in {c["name"] for c in answer["commands"]}
    [problem] = answer["problems"]
    assert problem.startswith("this workspace's skills (/fill-form) are not offered")
    assert "agentls trust" in problem

    plain_run = plain(await client.run(prompt="hello", runId="u1", sessionId="us"))
    assert plain_run["status"] == "success"
    assert CATALOGUED not in system_prompt(scripted, "alice")
    refused = plain(await client.run(prompt="/fill-form tax.pdf", runId="u2", sessionId="us2"))
    assert refused["status"] == "failed"
    assert "/fill-form is a skill of this workspace" in refused["output"]
    assert len(scripted.requests_for("alice")) == 1


# -- ACP ----------------------------------------------------------------------------------


async def test_acp_offers_the_skill_loads_it_and_runs_it_by_name(
    tmp_path: Path, scripted: ScriptedModelServer, trust_folder: Callable[..., None]
) -> None:
    ws = tmp_path / "repo"
    with_skill(ws)
    trust_folder(ws)
    scripted.add("acp-sk", tool_call("load_skill", {"name": "fill-form"}), text("loaded"))
    scripted.add("acp-sk", text("ran"))
    client = EditorClient()
    async with acp_agent(ws, scripted, "acp-sk", client) as conn:
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        loaded = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("fill the form")]
        )
        assert loaded.stop_reason == "end_turn"
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("/fill-form tax.pdf")]
        )
        assert answer.stop_reason == "end_turn"
    offers: list[Any] = [u for u in client.updates if isinstance(u, AvailableCommandsUpdate)]
    assert offers, "no available_commands_update"
    names = {c.name: c for c in offers[0].available_commands}
    assert names["fill-form"].description == "Fill a PDF form from a list of fields."
    assert names["fill-form"].input is not None
    assert names["fill-form"].input.root.hint == "<file>"
    first, after_load, by_name = scripted.requests_for("acp-sk")
    assert CATALOGUED in first.messages[0]["content"] and BODY not in str(first.messages)
    assert BODY in str(after_load.messages[-1])
    assert "fill tax.pdf with scripts/fill.py" in by_name.messages[-1]["content"]


async def test_acp_in_an_untrusted_folder_refuses_the_workspaces_skill(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = tmp_path / "repo"
    with_skill(ws)
    client = EditorClient()
    async with acp_agent(ws, scripted, "acp-un", client) as conn:
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("/fill-form tax.pdf")]
        )
        assert answer.stop_reason == "end_turn"
    offers: list[Any] = [u for u in client.updates if isinstance(u, AvailableCommandsUpdate)]
    assert "fill-form" in {c.name for c in offers[0].available_commands}
    said = client.agent_text()
    assert "/fill-form is a skill of this workspace" in said and "not trusted" in said
    assert scripted.requests_for("acp-un") == []
