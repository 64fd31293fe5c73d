"""Resident memory of the language server and its model worker, against the text it holds.

    .venv/bin/python bench/server_memory.py [--workspace DIR]

Starts the real server (``python -P -m agentls --stdio``) on a workspace (default: a copy of
the interpreter's standard library, the same corpus as ``bench/index_search.py``), waits
until the model worker is ready and the index is built and watched, makes one agent run
against the scripted model server (so the run machinery and token counting are loaded),
then reads ``VmRSS`` of the server and of its worker from /proc. The baseline is the text
the index holds, measured in this process with the server's own index settings. Goal:
server RSS at most 1.3x the held text + 100 MB; and the server never imports litellm.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from agentls_e2e import (  # noqa: E402
    VSCODE,
    AgentClient,
    make_client,
    plain,
    server_command,
    server_env,
)
from index_search import stdlib_corpus  # noqa: E402
from lsprotocol import types  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig  # noqa: E402

from agentls.agent.config import IndexerConfig  # noqa: E402
from agentls.agent.indexing import REPO_MAP_HEADING, SYMBOLS_CACHE_FILE  # noqa: E402
from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, call  # noqa: E402
from agentls.agent.tools.search import index_settings  # noqa: E402
from agentls.indexer.builder import RepoIndexer  # noqa: E402

MB = 1024 * 1024


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def cmdline(pid: int) -> str:
    with open(f"/proc/{pid}/cmdline", "rb") as fh:
        return fh.read().replace(b"\0", b" ").decode()


def held_text(root: Path) -> tuple[int, str]:
    """The bytes of text the server's index holds, and one of its files for the run to read."""
    index = RepoIndexer(root, index_settings(IndexerConfig())).build()
    held = index.text.total_bytes if index.text is not None else 0
    return held, min(info.path for info in index.files)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, help="default: a copy of the stdlib")
    args = parser.parse_args()
    root = (args.workspace or stdlib_corpus()).resolve()
    held, a_file = held_text(root)

    model = ScriptedModelServer().start()
    model.add(
        "bench",
        Turn(tool_calls=[call("read_file", {"path": a_file})]),
        Turn(text="It is a module. " * 40),
    )
    config = ClientServerConfig(
        server_command=server_command(), server_env=server_env(), client_factory=make_client
    )
    client = await config.start()
    assert isinstance(client, AgentClient)
    client.root = root
    options = {"llm": {"model": "openai/bench", "api_base": model.api_base, "retries": 0}}
    await client.initialize_session(
        types.InitializeParams(
            capabilities=VSCODE,
            root_uri=from_fs_path(str(root)),
            initialization_options=options,
        )
    )
    try:
        started = time.monotonic()
        pong: dict[str, object] = {}
        # A first start parses every file in the symbol process: measure once that is
        # done (it writes its cache then), as a user's later runs find it.
        cache = root / SYMBOLS_CACHE_FILE
        while time.monotonic() - started < 600:
            pong = dict(plain(await client.request("agent/ping", {})))
            if pong.get("llmReady") and pong.get("watching") and cache.exists():
                break
            await asyncio.sleep(0.2)
        await client.run(prompt="what is this?", runId="mem")
        system = str(model.requests_for("bench")[0].messages[0]["content"])
        pong = dict(plain(await client.request("agent/ping", {})))
        servers = [p for p in children(os.getpid()) if "--stdio" in cmdline(p)]
        server = servers[0]
        workers = [p for p in children(server) if "agentls.agent.llm.worker" in cmdline(p)]
        keepers = [p for p in children(server) if "agentls.indexer.symbols_process" in cmdline(p)]
        server_mb = rss_mb(server)
        worker_mb = rss_mb(workers[0]) if workers else float("nan")
        symbols_mb = rss_mb(keepers[0]) if keepers else float("nan")
    finally:
        try:
            await asyncio.wait_for(client.shutdown_session(), 10)
        finally:
            await client.stop()
            model.stop()

    goal = 1.3 * held / MB + 100
    print(f"workspace {root} · held text {held / MB:.1f} MB")
    print()
    print("| process | RSS MB | against the goal (1.3x held text + 100 MB) |")
    print("| --- | ---: | ---: |")
    print(f"| server | {server_mb:.0f} | {server_mb / goal:.2f} of {goal:.0f} MB |")
    print(f"| model worker | {worker_mb:.0f} | (litellm lives here) |")
    print(f"| symbol process | {symbols_mb:.0f} | (the repo map's symbols live here) |")
    print()
    loaded = pong.get("litellmLoaded")
    verdict = "met" if server_mb <= goal and loaded is False else "NOT met"
    print(f"server imported litellm: {loaded}; goal {verdict}")
    print(f"the run's prompt had a repo map: {REPO_MAP_HEADING in system}")


if __name__ == "__main__":
    asyncio.run(main())
