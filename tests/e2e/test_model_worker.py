"""The model worker process, seen from outside: the server's model calls run in one child
process, which dies with the server, and whose death mid-run fails that run clearly
without taking the server or the next run with it. It runs only while the agent is in
use: started by ``agent/prepare`` or the first run, ended when idle, kept by a run."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from agentls_e2e import AgentClient, LspFactory, kill, llm_options, plain, start_killable

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call, tool_calls

WORKER_MODULE = b"agentls.agent.llm.worker"

# About the worker process itself: started as the product starts it, not forked.
pytestmark = pytest.mark.usefixtures("worker_started_by_the_server")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after its ")"
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def worker_pids(server_pid: int) -> list[int]:
    pids = []
    for child in children(server_pid):
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if WORKER_MODULE in cmdline:
            pids.append(child)
    return pids


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def wait_llm_ready(client: AgentClient) -> None:
    """What an editor does when the user is about to run the agent, and its effect."""
    client.protocol.notify("agent/prepare", {})
    await client.ping_until(lambda pong: pong["llmReady"], "llmReady")


def server_pid(client: AgentClient) -> int:
    assert client._server is not None
    return client._server.pid


async def test_model_calls_run_in_one_child_that_exits_with_the_server(
    scripted: ScriptedModelServer, workspace: Path
) -> None:
    client = await start_killable(workspace, scripted, "alice")
    await wait_llm_ready(client)
    pid = server_pid(client)
    workers = worker_pids(pid)
    assert len(workers) == 1
    scripted.add("alice", text("first"), text("second"))
    for run_id in ("w1", "w2"):
        result = plain(await client.run(prompt="hi", runId=run_id))
        assert result["status"] == "success"
    assert worker_pids(pid) == workers  # one worker serves every run
    assert scripted.requests_for("alice")  # the calls reached the provider

    await kill(client)  # SIGKILL, no shutdown: the worker must notice on its own
    for _ in range(100):
        if not alive(workers[0]):
            break
        await asyncio.sleep(0.1)
    assert not alive(workers[0]), "the model worker outlived its server"


async def test_a_worker_killed_mid_stream_fails_that_run_and_the_next_run_works(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    client = await lsp()
    await wait_llm_ready(client)
    pid = server_pid(client)
    [first] = worker_pids(pid)
    scripted.add("alice", text("word " * 400, chunk_delay=0.05), text("back again"))
    run = client.run(prompt="talk", runId="k1")
    await client.wait_for(lambda: bool(client.of("agent/stream", "k1")), what="streamed text")
    os.kill(first, signal.SIGKILL)
    result = plain(await asyncio.wait_for(run, 60))
    assert result["status"] == "failed"
    assert "model worker process exited" in result["output"]
    assert "restarted on the next call" in result["output"]

    result = plain(await client.run(prompt="again", runId="k2"))
    assert result["status"] == "success"
    assert client.streamed("k2") == "back again"
    # Read while the new worker serves: one live worker, and the killed one reaped (a dead
    # worker never matches worker_pids, so comparing pids alone could not fail).
    [second] = worker_pids(pid)
    assert alive(second)
    assert first not in children(pid), "the killed worker was left a zombie of the server"
    assert (await client.request("agent/ping", {})).pong


async def test_the_server_process_never_imports_litellm_or_a_tokenizer(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    # litellm (~160 MB) and tiktoken's encodings (~40 MB) live in the worker only: it
    # makes the calls and counts the tokens the context manager needs after each step.
    client = await lsp()
    await wait_llm_ready(client)
    (client.root / "a.py").write_text("def f():\n    return 1\n")
    scripted.add("alice", tool_calls(tool_call("read_file", {"path": "a.py"})), text("first"))
    result = plain(await client.run(prompt="hi", runId="n1"))
    assert result["status"] == "success"
    assert len(scripted.requests_for("alice")) == 2
    ping = await client.request("agent/ping", {})
    assert ping.litellmLoaded is False
    assert ping.tokenizerLoaded is False
    assert worker_pids(server_pid(client))  # the calls went through the worker


def idle_after(scripted: ScriptedModelServer, seconds: float) -> dict[str, object]:
    options = llm_options(scripted)
    return {"llm": {**options["llm"], "worker_idle_seconds": seconds}}


async def test_no_worker_runs_until_the_agent_is_about_to_be_used(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    client = await lsp()
    # Settled: configuration loaded, warm-up and index done.
    pong = await client.ping_until(lambda pong: pong["watching"], "the index watcher")
    assert (pong["workerRunning"], pong["llmReady"]) == (False, False)
    assert worker_pids(server_pid(client)) == []

    await wait_llm_ready(client)  # agent/prepare
    [worker] = worker_pids(server_pid(client))
    scripted.add("alice", text("prepared"))
    result = plain(await client.run(prompt="hi", runId="p1"))
    assert result["status"] == "success"
    assert worker_pids(server_pid(client)) == [worker]  # the run used the prepared worker


async def test_the_first_run_without_prepare_starts_the_worker_and_waits_for_it(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    client = await lsp()
    assert not plain(await client.request("agent/ping", {}))["workerRunning"]
    scripted.add("alice", text("on demand"))
    result = plain(await client.run(prompt="hi", runId="d1"))
    assert (result["status"], result["output"]) == ("success", "on demand")
    assert len(worker_pids(server_pid(client))) == 1
    pong = plain(await client.request("agent/ping", {}))
    assert pong["workerRunning"] and pong["llmReady"]


async def test_an_idle_worker_ends_and_the_next_run_starts_another(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    client = await lsp(init_options=idle_after(scripted, 1))
    scripted.add("alice", text("first"), text("second"))
    assert plain(await client.run(prompt="one", runId="i1"))["status"] == "success"
    [first] = worker_pids(server_pid(client))

    await client.ping_until(lambda pong: not pong["workerRunning"], "the idle stop")
    # Ended and reaped, not left a zombie of the server.
    await client.wait_for(lambda: first not in children(server_pid(client)), what="its end")

    result = plain(await client.run(prompt="two", runId="i2"))
    assert (result["status"], result["output"]) == ("success", "second")
    [second] = worker_pids(server_pid(client))
    assert second != first


async def test_a_run_in_flight_keeps_its_worker_while_no_call_is_open(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    client = await lsp(init_options=idle_after(scripted, 0.5))
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("read"))
    # The run asks the user and nobody answers: in flight, with no model call open.
    run = client.run(prompt="read", runId="h1", confirmMode="confirm-all")
    await client.wait_for(client.approval_asked.is_set, what="the approval question")
    [worker] = worker_pids(server_pid(client))
    await asyncio.sleep(3)  # six idle periods: long enough for an idle stop to happen
    pong = plain(await client.request("agent/ping", {}))
    assert pong["workerRunning"] and pong["runs"] == 1
    assert worker_pids(server_pid(client)) == [worker] and alive(worker)

    assert plain(await client.request("agent/cancel", {"runId": "h1"}))["cancelled"]
    await asyncio.wait_for(run, 60)
    await client.ping_until(lambda pong: not pong["workerRunning"], "the idle stop after the run")
