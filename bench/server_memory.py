"""What an editor window costs in memory: the language server and its children, idle and
during a run, against the text the server holds.

    .venv/bin/python bench/server_memory.py [--corpus generated stdlib npm] [--workspace DIR]

For each workspace (default: 3,000 generated modules as in ``server_responsiveness.py``, and a
copy of the interpreter's standard library as in ``index_search.py``; ``npm`` is the 57k-file
corpus of ``index_search.py``, installed once with npm), the real server
(``python -P -m agentls --stdio``) is started twice:

- **on demand** (the default since the model worker starts at ``agent/prepare`` or the first
  run): ``VmRSS`` of the server, the symbol process and the model worker once the index is
  built and watched and the symbol process has filled (a first start: the bench removes
  its cache, so it parses every file and writes the cache once done) and no run was made
  (*just filled*); once the symbol process has ended after ``indexer.symbols_idle_seconds``
  (*idle*; the bench sets 10 s); the peak of their sum while a run of five steps (reads, a
  grep, a symbol lookup, then a streamed answer) works (*during a run*; the run starts the
  worker and the symbol process again, which reads its cache back, and waits for them);
  and again once both have ended after ``llm.worker_idle_seconds`` (5 s here) and
  ``indexer.symbols_idle_seconds`` (*idle again*).
- **worker at start** (``llm.worker_at_start: true`` and ``indexer.symbols_idle_seconds: 0``,
  what every window did before): *idle* only, the baseline an idle window is compared with.

The baseline of the goals is the text the index holds, measured in this process with the
server's own index settings. Goals: idle ≤ 1.3x the held text + 100 MB, during a run ≤ 1.3x
the held text + 250 MB, for the three processes together; and the server never imports
litellm (``agent/ping``'s ``litellmLoaded``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import procfs  # noqa: E402
from agentls_e2e import VSCODE, AgentClient, make_client, plain, server_command, server_env  # noqa: E402
from index_search import npm_corpus, stdlib_corpus  # noqa: E402
from lsprotocol import types  # noqa: E402
from procfs import cmdline, status_field  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig  # noqa: E402
from server_responsiveness import make_sources  # noqa: E402

from agentls.agent.config.models import IndexerConfig  # noqa: E402
from agentls.agent.indexing import REPO_MAP_HEADING, SYMBOLS_CACHE_FILE  # noqa: E402
from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, call  # noqa: E402
from agentls.agent.tools.search import index_settings  # noqa: E402
from agentls.indexer.builder import RepoIndexer  # noqa: E402

MB = 1024 * 1024
IDLE_SECONDS = 5
SYMBOLS_IDLE_SECONDS = 10
WORKER = "agentls.agent.llm.worker"
SYMBOLS = "agentls.indexer.symbols_process"


def rss_mb(pid: int | None) -> float:
    return status_field(pid, "VmRSS") / 1024


def children(pid: int) -> list[int]:
    """The live children of ``pid`` (zombies left out)."""
    return [child for child, state in procfs.children(pid) if state != "Z"]


@dataclass
class Sample:
    server: float
    symbols: float
    worker: float

    @property
    def total(self) -> float:
        return self.server + self.symbols + self.worker


def sample(server: int) -> Sample:
    kids = children(server)
    worker = next((p for p in kids if WORKER in cmdline(p)), None)
    symbols = next((p for p in kids if SYMBOLS in cmdline(p)), None)
    return Sample(rss_mb(server), rss_mb(symbols), rss_mb(worker))


def steady(server: int, count: int = 5) -> Sample:
    """The median of a few samples half a second apart (idle: nothing should move)."""
    samples = []
    for _ in range(count):
        samples.append(sample(server))
        time.sleep(0.5)
    by_total = sorted(samples, key=lambda s: s.total)
    return by_total[len(by_total) // 2]


def held_text(root: Path) -> tuple[int, str]:
    """The bytes of text the server's index holds, and one of its files for the run to read."""
    index = RepoIndexer(root, index_settings(IndexerConfig())).build()
    held = index.text.total_bytes if index.text is not None else 0
    return held, min(info.path for info in index.files)


async def until(client: AgentClient, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 900
    while True:
        pong = dict(plain(await client.request("agent/ping", {})))
        if ready(pong) or time.monotonic() > deadline:
            return pong
        await asyncio.sleep(0.2)


def symbols_running(server: int) -> bool:
    return any(SYMBOLS in cmdline(p) for p in children(server))


async def start(
    root: Path, llm: dict[str, Any], symbols_idle_seconds: float
) -> tuple[AgentClient, int]:
    config = ClientServerConfig(
        server_command=server_command(), server_env=server_env(), client_factory=make_client
    )
    before = set(children(os.getpid()))
    client = await config.start()
    assert isinstance(client, AgentClient)
    client.root = root
    await client.initialize_session(
        types.InitializeParams(
            capabilities=VSCODE,
            root_uri=from_fs_path(str(root)),
            initialization_options={
                "llm": llm,
                "indexer": {"symbols_idle_seconds": symbols_idle_seconds},
            },
        )
    )
    [server] = [p for p in children(os.getpid()) if p not in before and "--stdio" in cmdline(p)]
    # Settled: the index built and watched, and the symbol process filled (a first start
    # parses every file; it writes its cache once done), as a user's later windows find it.
    cache = root / SYMBOLS_CACHE_FILE
    await until(client, lambda pong: bool(pong["watching"]) and cache.exists())
    return client, server


async def stop(client: AgentClient) -> None:
    try:
        await asyncio.wait_for(client.shutdown_session(), 10)
    finally:
        await client.stop()


@dataclass
class Measured:
    name: str
    held: int
    filled: Sample
    idle: Sample
    run: Sample
    idle_again: Sample
    at_start: Sample
    worker_idle: bool
    litellm_loaded: object
    map_in_prompt: bool


async def measure(name: str, root: Path, model: ScriptedModelServer) -> Measured:
    held, a_file = held_text(root)
    llm = {"model": "openai/bench", "api_base": model.api_base, "retries": 0}
    # A first start: the symbol process parses every file and writes its cache once
    # filled, which ``start`` waits for; the second server and later children read it.
    (root / SYMBOLS_CACHE_FILE).unlink(missing_ok=True)

    client, server = await start(
        root, {**llm, "worker_idle_seconds": IDLE_SECONDS}, SYMBOLS_IDLE_SECONDS
    )
    try:
        filled = steady(server, 3)  # well within the symbol process's idle time
        await until(client, lambda pong: not symbols_running(server))
        idle = steady(server)
        worker_idle = not (await until(client, lambda pong: True))["workerRunning"]
        # Several steps, as a real task has: a model worker that loaded anything in the
        # background after its first answers would be caught at its peak.
        model.add(
            "bench",
            Turn(tool_calls=[call("read_file", {"path": a_file})]),
            Turn(tool_calls=[call("grep", {"pattern": "function"})]),
            Turn(tool_calls=[call("find_symbol", {"name": "main"})]),
            Turn(tool_calls=[call("read_file", {"path": a_file})]),
            Turn(text="It is a module. " * 400, chunk_size=16, chunk_delay=0.01),
        )
        run = client.run(prompt="what is this?", runId="mem")
        peak = Sample(0, 0, 0)
        while not run.done():
            now = sample(server)
            if now.total > peak.total:
                peak = now
            await asyncio.sleep(0.1)
        await run
        system = str(model.requests_for("bench")[-5].messages[0]["content"])
        pong = await until(
            client, lambda pong: not pong["workerRunning"] and not symbols_running(server)
        )
        again = steady(server)
    finally:
        await stop(client)

    client, server = await start(root, {**llm, "worker_at_start": True}, 0)
    try:
        await until(client, lambda pong: bool(pong["llmReady"]))
        at_start = steady(server)
    finally:
        await stop(client)
    return Measured(
        name,
        held,
        filled,
        idle,
        peak,
        again,
        at_start,
        worker_idle,
        pong.get("litellmLoaded"),
        REPO_MAP_HEADING in system,
    )


def report(results: list[Measured]) -> None:
    print(
        "| workspace | held text | state | server | symbol process | model worker | total "
        "| goal | total / goal |"
    )
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for m in results:
        held = m.held / MB
        idle_goal, run_goal = 1.3 * held + 100, 1.3 * held + 250
        rows = [
            ("idle, worker at start, symbols kept (before)", m.at_start, idle_goal),
            ("idle, symbol process just filled", m.filled, idle_goal),
            (f"**idle** (symbol process ended after {SYMBOLS_IDLE_SECONDS} s)", m.idle, idle_goal),
            ("**during a run** (peak)", m.run, run_goal),
            ("idle again (worker and symbol process ended)", m.idle_again, idle_goal),
        ]
        for state, s, goal in rows:
            ratio = s.total / goal
            print(
                f"| {m.name} | {held:.1f} MB | {state} | {s.server:.0f} | {s.symbols:.0f} "
                f"| {s.worker:.0f} | {s.total:.0f} | {goal:.0f} | {ratio:.2f}"
                f"{'' if ratio <= 1 else ' (not met)'} |"
            )
    print()
    for m in results:
        print(
            f"{m.name}: idle {m.idle.total / m.at_start.total:.2f}x the idle window of before; "
            f"no worker while idle: {m.worker_idle}; server imported litellm: "
            f"{m.litellm_loaded}; the run's prompt had a repo map: {m.map_in_prompt}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--corpus",
        nargs="*",
        choices=("generated", "stdlib", "npm"),
        default=["generated", "stdlib"],
    )
    parser.add_argument("--workspace", type=Path, action="append", default=[])
    parser.add_argument("--files", type=int, default=3000, help="generated modules")
    args = parser.parse_args()

    model = ScriptedModelServer().start()
    results: list[Measured] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            workspaces: list[tuple[str, Path]] = []
            if "generated" in args.corpus:
                generated = Path(tmp) / "generated"
                make_sources(generated, args.files)
                workspaces.append((f"{args.files:,} generated modules", generated))
            if "stdlib" in args.corpus:
                workspaces.append(("stdlib copy", stdlib_corpus()))
            if "npm" in args.corpus and (npm := npm_corpus()) is not None:
                workspaces.append(("npm corpus (57k files)", npm))
            workspaces += [(str(path), path) for path in args.workspace]
            for name, root in workspaces:
                print(f"measuring {name} ({root})...", file=sys.stderr, flush=True)
                results.append(await measure(name, root.resolve(), model))
    finally:
        model.stop()
    report(results)


if __name__ == "__main__":
    asyncio.run(main())
