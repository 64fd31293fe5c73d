"""The live index: a file created after start-up is in the next run's system prompt."""

from __future__ import annotations

from pathlib import Path

from agentls_e2e import AgentClient, LspFactory
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text


async def _wait_indexed(client: AgentClient, files: int) -> None:
    """Until the live index holds ``files`` text files (the watcher saw the new one)."""
    await client.ping_until(lambda pong: pong["indexedFiles"] == files, f"{files} indexed files")


def _system_prompt(scripted: ScriptedModelServer, index: int) -> str:
    return str(scripted.requests_for("alice")[index].messages[0]["content"])


async def test_new_file_reaches_next_run(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add("alice", text("one"), text("two"))
    client = await lsp()
    await client.wait_for(lambda: "agentls/index" in client.progress_reports, what="index progress")
    await client.wait_for(
        lambda: any(
            isinstance(r, types.WorkDoneProgressEnd)
            for r in client.progress_reports["agentls/index"]
        ),
        what="index end",
    )
    begin = client.progress_reports["agentls/index"][0]
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.title == "Indexing…"
    end = client.progress_reports["agentls/index"][-1]
    assert end.message == "2 files"

    await client.run(prompt="first", runId="i1")
    assert "app.py" in _system_prompt(scripted, 0)
    assert "brand_new.py" not in _system_prompt(scripted, 0)

    (workspace / "src" / "brand_new.py").write_text("VALUE = 1\n")
    await _wait_indexed(client, 3)
    await client.run(prompt="second", runId="i2")
    assert "brand_new.py" in _system_prompt(scripted, 1)
