"""initialize answers fast while litellm imports; stdout carries only LSP."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

from agentls_e2e import LspFactory, plain, server_env

from agent.llm.scripted_server import ScriptedModelServer, text

GENEROUS = 2.0  # seconds: a loaded 2-core machine, not a benchmark


async def test_requests_answered_while_litellm_imports(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    client = await lsp()
    # `initialized` has just started the litellm import (~3 s) in a thread; the
    # server must answer meanwhile.
    started = time.monotonic()
    pong = plain(await client.request("agent/ping", {}))
    assert pong["pong"] is True
    assert time.monotonic() - started < GENEROUS
    assert pong["llmReady"] is False  # answered while litellm was still importing
    latencies = []
    for _ in range(10):
        t = time.monotonic()
        await client.request("agent/ping", {})
        latencies.append(time.monotonic() - t)
        await asyncio.sleep(0.05)
    assert max(latencies) < GENEROUS
    for _ in range(600):
        if plain(await client.request("agent/ping", {}))["llmReady"]:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("litellm never finished importing")


async def test_first_run_works(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", text("hello"))
    client = await lsp()
    result = plain(await client.run(prompt="hi", runId="st1"))
    assert result["output"] == "hello"
    assert client.error is None


def test_stdout_is_protected() -> None:
    """After protect_stdout() only the returned stream reaches fd 1 of the process."""
    code = (
        "import os, sys\n"
        "from server.__main__ import protect_stdout\n"
        "out = protect_stdout()\n"
        "print('stray print')\n"
        "os.write(1, b'raw fd write')\n"
        "sys.__stdout__.write('dunder stdout'); sys.__stdout__.flush()\n"
        "out.write(b'LSP-ONLY'); out.flush()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=server_env(), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"LSP-ONLY"
    assert b"stray print" in done.stderr and b"raw fd write" in done.stderr
