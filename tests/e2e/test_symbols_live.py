"""Symbols over the real server: the repo map in the system prompt, and find_symbol
finding a file written while the server runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentls_e2e import LspFactory, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

ATTEMPTS = 40  # the watcher applies a write within its debounce; this is generous


async def _indexed(client: object) -> None:
    await client.wait_for(  # type: ignore[attr-defined]
        lambda: any(
            isinstance(r, types.WorkDoneProgressEnd)
            for r in client.progress_reports.get("agentls/index", [])  # type: ignore[attr-defined]
        ),
        what="index end",
    )


async def test_written_file_is_found_by_find_symbol(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    client = await lsp()
    await _indexed(client)
    scripted.add("alice", text("looked"))
    await client.run(prompt="why does greet misbehave?", runId="m0")
    system = str(scripted.requests_for("alice")[0].messages[0]["content"])
    assert "## Repo map" in system and "src/app.py:" in system

    (workspace / "src" / "late.py").write_text(
        "class Ledger:\n    def reconcile_late(self, entries):\n        return entries\n"
    )
    told = ""
    for attempt in range(ATTEMPTS):
        scripted.add("alice", tool_call("find_symbol", {"name": "reconcile_late"}), text("ok"))
        await client.run(prompt="where is reconcile_late?", runId=f"s{attempt}")
        last = scripted.requests_for("alice")[-1].messages
        told = str([m for m in last if m.get("role") == "tool"][-1]["content"])
        if "src/late.py" in told:
            break
        await asyncio.sleep(0.25)  # polling the watcher; the loop ends as soon as it applied
    assert told == "src/late.py:2: def reconcile_late(self, entries):"
    # The next run's map has it too (a run's map is fixed when the run starts).
    scripted.add("alice", text("ok"))
    await client.run(prompt="reconcile_late is slow", runId="m1")
    system = str(scripted.requests_for("alice")[-1].messages[0]["content"])
    assert "src/late.py:\n  1: class Ledger:\n  2: def reconcile_late(self, entries):" in system
    # The map and the lookups came from the symbol process: the server parsed nothing.
    pong = plain(await client.request("agent/ping", {}))
    assert pong["parserLoaded"] is False
