"""How responsive the agentls server stays: ping latency idle vs during a busy run,
and start-up time (spawn → ``initialize`` result) against a bare pygls server.

    .venv/bin/python bench/server_responsiveness.py [--pings 300] [--spawns 5]

The busy run streams ~200 chunks/s from the scripted model server and edits files
(yolo ``write_file`` → ``workspace/applyEdit``, applied by this client) while this
client sends ``agent/ping`` every 10 ms. Goals: p99 while running ≤ 10 ms;
initialize ≤ 1.2× bare pygls. After the run it reads the server's RSS against the text
of the workspace it holds (``--files`` generated source files): goal ≤ 1.3× that text
+ 100 MB, and litellm never imported in the server process.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from agentls_e2e import VSCODE, AgentClient, make_client, server_command, server_env  # noqa: E402
from lsprotocol import types  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig  # noqa: E402

from agentls.agent.llm.scripted_server import Turn, call  # noqa: E402
from agentls.agent.llm.scripted_server_process import RemoteScriptedServer, spawn_scripted_server  # noqa: E402

BARE_PYGLS = "from pygls.lsp.server import LanguageServer\nLanguageServer('bare', '0').start_io()\n"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def start(
    command: list[str], root: Path, options: dict[str, Any] | None
) -> tuple[AgentClient, float]:
    config = ClientServerConfig(
        server_command=command, server_env=server_env(), client_factory=make_client
    )
    spawned = time.perf_counter()
    client = await config.start()
    assert isinstance(client, AgentClient)
    client.root = root
    await client.initialize_session(
        types.InitializeParams(
            capabilities=VSCODE,
            root_uri=from_fs_path(str(root)),
            initialization_options=options,
        )
    )
    return client, time.perf_counter() - spawned


async def stop(client: AgentClient) -> None:
    try:
        await asyncio.wait_for(client.shutdown_session(), 10)
    finally:
        await client.stop()


async def ping(client: AgentClient) -> float:
    t = time.perf_counter()
    await client.request("agent/ping", {})
    return (time.perf_counter() - t) * 1000


async def spawn_times(root: Path, spawns: int) -> tuple[list[float], list[float]]:
    agentls, bare = [], []
    for _ in range(spawns):  # interleaved, so machine load hits both alike
        client, seconds = await start(server_command(), root, {})
        agentls.append(seconds * 1000)
        await stop(client)
        client, seconds = await start([sys.executable, "-c", BARE_PYGLS], root, None)
        bare.append(seconds * 1000)
        await stop(client)
    return agentls, bare


def busy_script(server: RemoteScriptedServer, turns: int) -> None:
    """Each turn streams ~1,600 characters (8 per chunk, 5 ms apart: ~200 chunks/s)
    and writes a file; the last turn ends the run."""
    prose = "".join(f"token{i} " for i in range(200))
    for i in range(turns):
        content = f"VALUE = {i}\n" * 20
        server.add(
            "bench",
            Turn(
                text=prose,
                tool_calls=[call("write_file", {"path": f"out/file{i}.py", "content": content})],
                chunk_size=8,
                chunk_delay=0.005,
            ),
        )
    server.add("bench", Turn(text="done"))


def show_slow(client: AgentClient, sent: list[float], busy: list[float], limit: float) -> None:
    """Slow pings in time order among the run's step and status events (not its text),
    to see which phase of a run they fall in."""
    start = sent[0]
    lines = [
        (at, f"  {method} {params.get('phase') or params.get('state') or ''}")
        for (method, params), at in zip(client.events, client.event_times, strict=True)
        if method in ("agent/step", "agent/status") and at >= start
    ]
    slow = [(at, ms) for at, ms in zip(sent, busy, strict=True) if ms > limit]
    lines += [(at, f"SLOW ping {ms:.1f} ms") for at, ms in slow]
    for at, text in sorted(lines):
        print(f"{(at - start) * 1000:8.0f} ms  {text}")
    print()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pings", type=int, default=300)
    parser.add_argument("--spawns", type=int, default=5)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--files", type=int, default=3000, help="generated source files")
    parser.add_argument(
        "--show-slow",
        type=float,
        metavar="MS",
        help="list the pings during the run slower than MS, between the run's step events",
    )
    args = parser.parse_args()

    # The model server runs in its own process, as a real provider would: in this
    # process its streaming thread would compete with the client for the GIL and
    # slow the client's side of each ping.
    with tempfile.TemporaryDirectory() as tmp, spawn_scripted_server() as model:
        root = Path(tmp)
        (root / "src").mkdir()
        (root / "src" / "app.py").write_text("def f():\n    return 1\n")
        held = make_sources(root, args.files)
        options = {
            "llm": {"model": "openai/bench", "api_base": model.api_base, "retries": 0},
            "agents": {},
        }
        client, _ = await start(server_command(), root, options)
        # measure idle after the litellm warm-up, as an editor would see it once its
        # panel opened (agent/prepare starts the model worker)
        client.protocol.notify("agent/prepare", {})
        for _ in range(1200):
            if (await client.request("agent/ping", {})).llmReady:
                break
            await asyncio.sleep(0.1)
        idle = [await ping(client) for _ in range(args.pings)]
        # One short run first, as an editor that has run the agent once: litellm and
        # httpx import a few modules lazily on their first call (a one-time cost).
        model.add("bench", Turn(text="warm"))
        first_run = time.perf_counter()
        await client.run(prompt="warm up", runId="warm", confirmMode="yolo")
        first_run_ms = (time.perf_counter() - first_run) * 1000

        busy_script(model, args.turns)
        run = client.run(prompt="busy", runId="bench", confirmMode="yolo", maxSteps=50)
        await client.wait_for(lambda: bool(client.of("agent/stream", "bench")), what="stream")
        busy: list[float] = []
        sent: list[float] = []
        while not run.done():
            sent.append(time.monotonic())
            busy.append(await ping(client))
            await asyncio.sleep(0.01)
        result = run.result()
        if args.show_slow is not None:
            show_slow(client, sent, busy, args.show_slow)
        chunks = len(client.of("agent/stream", "bench"))
        for _ in range(1200):
            pong = await client.request("agent/ping", {})
            if pong.watching:
                break
            await asyncio.sleep(0.1)
        litellm_loaded = pong.litellmLoaded
        assert client._server is not None
        rss = rss_bytes(client._server.pid)
        await stop(client)
        agentls, bare = await spawn_times(root, args.spawns)

    print(
        f"run: status={result.status}, {result.steps} steps, {len(client.edits)} applyEdits, "
        f"{chunks} agent/stream notifications, {len(busy)} pings during the run"
    )
    print()
    print(f"{'measure':<34} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'n':>5}")
    for name, values in (("ping, idle", idle), ("ping, during a streaming+edit run", busy)):
        p50, p99 = pct(values, 0.5), pct(values, 0.99)
        print(f"{name:<34} {p50:8.2f} {p99:8.2f} {max(values):8.2f} {len(values):5d}")
    print(f"{'first run (one model turn), ms':<34} {first_run_ms:8.0f}")
    print()
    print(f"{'spawn → initialize result':<34} {'median ms':>10} {'min ms':>8}")
    print(f"{'bare pygls':<34} {statistics.median(bare):10.0f} {min(bare):8.0f}")
    print(f"{'agentls':<34} {statistics.median(agentls):10.0f} {min(agentls):8.0f}")
    ratio = statistics.median(agentls) / statistics.median(bare)
    print(f"{'ratio agentls / bare (median)':<34} {ratio:10.2f}   goal ≤ 1.20")
    p99 = pct(busy, 0.99)
    print(f"p99 while running: {p99:.2f} ms   goal ≤ 10 ms")
    print()
    budget = 1.3 * held + 100 * MB
    print(
        f"server RSS {rss / MB:.0f} MB, held text {held / MB:.1f} MB ({args.files} files); "
        f"ratio RSS / (1.3 × text + 100 MB) = {rss / budget:.2f}   goal ≤ 1.00; "
        f"litellm in the server: {litellm_loaded}"
    )


MB = 1024 * 1024


def make_sources(root: Path, files: int) -> int:
    """``files`` Python modules of a few kB each; returns the bytes of text written."""
    total = 0
    for index in range(files):
        folder = root / "pkg" / f"m{index // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = "".join(
            f"def f{index}_{n}(x: int) -> int:\n    return x * {n} + {index}\n" for n in range(60)
        )
        (folder / f"mod{index}.py").write_text(text)
        total += len(text.encode())
    return total


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


if __name__ == "__main__":
    asyncio.run(main())
