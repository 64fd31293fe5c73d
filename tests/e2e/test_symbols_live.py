"""Symbols over the real server: the repo map in the system prompt, find_symbol finding a
file written while the server runs, and the symbol process ended when idle."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from agentls_e2e import LspFactory, llm_options, plain
from lsprotocol import types

from agentls.agent.indexing import SYMBOLS_CACHE_FILE
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


SYMBOLS_MODULE = b"agentls.indexer.symbols_process"


def symbol_pids(server: int) -> list[int]:
    """The server's symbol processes (children whose command runs the module), alive."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == server and fields[0] != "Z" and SYMBOLS_MODULE in cmdline:
            found.append(int(entry.name))
    return found


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_an_idle_symbol_process_ends_and_prepare_starts_it_again(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    options = {**llm_options(scripted), "indexer": {"symbols_idle_seconds": 1}}
    client = await lsp(init_options=options)
    assert client._server is not None
    server = client._server.pid
    await _indexed(client)
    # Filled (it writes its cache then), a second without a question: it ends.
    cache = workspace / SYMBOLS_CACHE_FILE
    await _until(lambda: cache.is_file() and not symbol_pids(server), "the idle stop")

    # A file written meanwhile does not start it; the panel opening does.
    (workspace / "src" / "late.py").write_text("def reconcile_late(entries):\n    return 0\n")
    await client.ping_until(lambda pong: pong["indexedFiles"] == 3, "the new file indexed")
    assert not symbol_pids(server)
    client.protocol.notify("agent/prepare", {})
    await _until(lambda: bool(symbol_pids(server)), "the symbol process started again")
    # And it answers as before, the file written while it was stopped included.
    scripted.add("alice", tool_call("find_symbol", {"name": "reconcile_late"}), text("ok"))
    await client.run(prompt="where is reconcile_late?", runId="s1")
    last = scripted.requests_for("alice")[-1].messages
    told = str([m for m in last if m.get("role") == "tool"][-1]["content"])
    assert told == "src/late.py:1: def reconcile_late(entries):"
