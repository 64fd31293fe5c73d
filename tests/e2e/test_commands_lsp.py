"""``agent/commands`` over stdio, and a command run the way the VS Code panel runs one: the
prompt file's command with the active file in a subfolder, whose AGENTS.md joins the root's."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from agentls_e2e import AgentClient, LspFactory, plain

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

FIX_TESTS = """---
description: Fix the failing tests of a module
argument-hint: <module>
---
Run the tests of $1 and fix what fails.
"""
BROKEN = "---\ndescription: [unclosed\n---\nbody\n"
BUILT_INS = {"clear", "compact", "init", "model", "review"}


async def _settled(client: AgentClient) -> None:
    """Until the server's symbol process is up. A server shut down while that process is
    still being created hangs on exit (CPython 3.11 never finishes a subprocess transport
    cancelled before its pipes connect), and these tests end a few milliseconds after the
    server started."""
    await client.ping_until(lambda pong: pong["watching"], "the index")
    assert client._server is not None
    pid = client._server.pid
    deadline = time.monotonic() + 30
    while not any("symbols_process" in command for command in _children(pid)):
        assert time.monotonic() < deadline, "the symbol process did not start"
        await asyncio.sleep(0.05)


def _children(pid: int) -> list[str]:
    """The command lines of the processes whose parent is ``pid`` (Linux)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parent = (entry / "stat").read_text().rsplit(") ", 1)[1].split()[1]
            if parent == str(pid):
                found.append((entry / "cmdline").read_bytes().decode(errors="replace"))
        except (OSError, IndexError):  # a process that ended meanwhile
            continue
    return found


def _prompt_files(root: Path) -> None:
    prompts = root / ".github" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "fix-tests.prompt.md").write_text(FIX_TESTS)
    (prompts / "broken.prompt.md").write_text(BROKEN)


async def test_commands_lists_every_source_and_names_the_broken_file(
    lsp: LspFactory, workspace: Path, user_config_dir: Path
) -> None:
    _prompt_files(workspace)
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "explain.md").write_text(
        "Explain ${input:topic:what to explain} to a newcomer.\n"
    )
    (user_config_dir / "prompts").mkdir()
    (user_config_dir / "prompts" / "standup.prompt.md").write_text("Summarise what I did.\n")
    client = await lsp()

    answer = plain(await client.request("agent/commands", {}))

    by_name = {c["name"]: c for c in answer["commands"]}
    assert [c["name"] for c in answer["commands"]] == sorted(by_name)
    assert set(by_name) == BUILT_INS | {"fix-tests", "explain", "standup"}
    assert by_name["fix-tests"] == {
        "name": "fix-tests",
        "description": "Fix the failing tests of a module",
        "hint": "<module>",
        "source": "workspace",
        "path": ".github/prompts/fix-tests.prompt.md",
    }
    assert by_name["explain"]["hint"] == "topic=<what to explain>"
    assert by_name["explain"]["path"] == ".claude/commands/explain.md"
    assert by_name["standup"]["source"] == "user"
    assert by_name["standup"]["path"] == "your prompts/standup.prompt.md"
    assert by_name["review"]["source"] == "built-in"
    assert by_name["review"]["path"] == ""
    assert "broken" not in by_name
    [problem] = answer["problems"]
    assert problem.startswith(".github/prompts/broken.prompt.md: ")
    assert "YAML" in problem

    # Read again at each request: a file written meanwhile is there, one fixed is listed.
    (workspace / ".github" / "prompts" / "broken.prompt.md").write_text("Now it works.\n")
    again = plain(await client.request("agent/commands", {}))
    assert "broken" in {c["name"] for c in again["commands"]}
    assert again["problems"] == []
    await _settled(client)


async def test_commands_of_a_workspace_without_prompt_files_are_the_built_ins(
    lsp: LspFactory,
) -> None:
    client = await lsp()
    answer = plain(await client.request("agent/commands", {}))
    assert {c["name"] for c in answer["commands"]} == BUILT_INS
    assert answer["problems"] == []
    await _settled(client)


async def test_a_command_runs_with_the_instructions_of_the_active_files_folder(
    lsp: LspFactory, workspace: Path, scripted: ScriptedModelServer
) -> None:
    _prompt_files(workspace)
    (workspace / "AGENTS.md").write_text("Root rule: keep functions short.\n")
    (workspace / "src" / "AGENTS.md").write_text("Src rule: use type hints.\n")
    scripted.add("alice", text("Fixed."))
    client = await lsp()

    result = plain(
        await client.run(
            prompt="/fix-tests auth", runId="c1", sessionId="cs1", activeFile="src/app.py"
        )
    )

    assert result["status"] == "success", result
    assert result["instructions"] == ["AGENTS.md", "src/AGENTS.md"]
    assert client.of("agent/instructions", "c1") == [
        {"runId": "c1", "files": ["AGENTS.md", "src/AGENTS.md"]}
    ]
    sent = str(scripted.requests_for("alice")[0].messages)
    assert "Run the tests of auth and fix what fails." in sent
    assert "Root rule: keep functions short." in sent
    assert "Src rule: use type hints." in sent
