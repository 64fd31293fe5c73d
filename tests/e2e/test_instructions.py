"""Instruction files and /commands through each front end, on a small monorepo: the CLI
run from a subfolder, the language server with the editor's active file, an ACP editor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import AgentThoughtChunk, AvailableCommandsUpdate, TextContentBlock
from agentls_e2e import LspFactory, plain, run_cli
from test_acp import EditorClient, acp_agent

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)


def monorepo(root: Path) -> Path:
    (root / "web").mkdir(parents=True, exist_ok=True)
    (root / "api").mkdir(exist_ok=True)
    (root / "AGENTS.md").write_text("Root rule: run make test.\n")
    (root / "web" / "AGENTS.md").write_text("Web rule: use pnpm.\n")
    (root / "web" / "app.ts").write_text("export const x = 1;\n")
    (root / "api" / "AGENTS.md").write_text("Api rule: use uv.\n")
    (root / "api" / "main.py").write_text("print('api')\n")
    prompts = root / ".github" / "prompts"
    prompts.mkdir(parents=True, exist_ok=True)
    (prompts / "explain.prompt.md").write_text(
        "---\ndescription: Explain a file to a newcomer\nargument-hint: <file>\n"
        "agent: plan\n---\nExplain $1 to a newcomer.\n"
    )
    return root


def system_prompt(scripted: ScriptedModelServer, model: str, call: int = 0) -> str:
    return str(scripted.requests_for(model)[call].messages[0]["content"])


# -- the CLI ------------------------------------------------------------------------------


def test_the_cli_reads_the_files_down_to_the_current_folder_and_names_them(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = monorepo(tmp_path / "repo")
    scripted.add(
        "ci1", tool_call("read_file", {"path": "api/main.py"}), text("The web app exports x.")
    )
    model = ["--model", "openai/ci1", "--api-base", scripted.api_base]
    done = run_cli(ws / "web", "run", "what is here?", "--workspace", str(ws), *model)
    assert done.returncode == 0, done.stderr
    assert "Instructions: AGENTS.md, web/AGENTS.md" in done.stderr
    assert "Instructions joined: api/AGENTS.md" in done.stderr
    prompt = system_prompt(scripted, "ci1")
    assert "Root rule" in prompt and "Web rule" in prompt and "Api rule" not in prompt


def test_the_cli_runs_a_prompt_file_and_refuses_an_unknown_command(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = monorepo(tmp_path / "repo")
    scripted.add("ci2", text("It exports x."))
    model = ["--model", "openai/ci2", "--api-base", scripted.api_base]
    done = run_cli(ws, "run", "/explain web/app.ts", *model, "--json")
    assert done.returncode == 0, done.stderr
    assert scripted.requests_for("ci2")[0].messages[-1]["content"] == (
        "Explain web/app.ts to a newcomer."
    )
    unknown = run_cli(ws, "run", "/nope", *model)
    assert unknown.returncode != 0
    assert "/nope" in unknown.stdout + unknown.stderr
    assert len(scripted.requests_for("ci2")) == 1
    listed = run_cli(ws, "slash-commands")
    assert listed.returncode == 0 and "/explain" in listed.stdout and "/init" in listed.stdout
    assert run_cli(ws, "commands").stdout == listed.stdout, "the old name still works"


# -- the language server ------------------------------------------------------------------


async def test_the_server_reads_the_active_files_folders_and_says_which(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    monorepo(workspace)
    scripted.add(
        "alice", tool_call("read_file", {"path": "api/main.py"}), text("The web app exports x.")
    )
    client = await lsp()
    result = plain(await client.run(prompt="explain", runId="i1", activeFile="web/app.ts"))
    assert result["status"] == "success"
    assert result["instructions"] == ["AGENTS.md", "web/AGENTS.md", "api/AGENTS.md"]
    told = client.of("agent/instructions", "i1")
    assert told[0]["files"] == ["AGENTS.md", "web/AGENTS.md"] and "joined" not in told[0]
    assert told[1] == {"runId": "i1", "files": ["api/AGENTS.md"], "joined": True}
    assert "Web rule" in system_prompt(scripted, "alice")


async def test_a_command_over_the_server_runs_with_its_agent(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    monorepo(workspace)
    scripted.add("alice", text("explained"))
    client = await lsp()
    result = plain(await client.run(prompt="/explain web/app.ts", runId="i2"))
    assert result["status"] == "success"
    request = scripted.requests_for("alice")[0]
    assert request.messages[-1]["content"] == "Explain web/app.ts to a newcomer."
    assert "write_file" not in {t["function"]["name"] for t in request.body["tools"]}
    failed = plain(await client.run(prompt="/explain-all", runId="i3"))
    assert failed["status"] == "failed" and "/explain-all" in failed["output"]


# -- an ACP editor ------------------------------------------------------------------------


async def test_an_acp_editor_is_offered_the_commands_and_told_the_instructions(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = monorepo(tmp_path / "repo")
    scripted.add("acp-in", text("explained"))
    client = EditorClient()
    async with acp_agent(ws, scripted, "acp-in", client) as conn:
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("/explain web/app.ts")]
        )
        assert answer.stop_reason == "end_turn"
        cleared = await conn.prompt(session_id=session.session_id, prompt=[text_block("/clear")])
        assert cleared.stop_reason == "end_turn"
    offers: list[Any] = [u for u in client.updates if isinstance(u, AvailableCommandsUpdate)]
    assert offers, "no available_commands_update"
    names = {c.name: c for c in offers[0].available_commands}
    assert {"explain", "init", "review", "compact"} <= set(names) and "clear" not in names
    assert names["explain"].description == "Explain a file to a newcomer"
    assert names["explain"].input is not None
    assert names["explain"].input.root.hint == "<file>"
    thoughts = [
        u.content.text
        for u in client.updates
        if isinstance(u, AgentThoughtChunk) and isinstance(u.content, TextContentBlock)
    ]
    assert any(t.startswith("Instructions: AGENTS.md") for t in thoughts)
    assert "Explain web/app.ts" in str(scripted.requests_for("acp-in")[0].messages[-1])
    assert "new session" in client.agent_text()
