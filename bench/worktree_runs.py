"""Several runs at once, each in a worktree of its own, in one agentls server.

    .venv/bin/python bench/worktree_runs.py [--steps 4] [--files 300]

For N = 1, 2 and 4 worktree runs started together (``agent/run {worktree}``) against the
scripted model (its own process, streaming ~200 chunks/s, each step writing a file), it
measures the wall time until the last run ended, the server's peak RSS while they ran
(sampled every 50 ms, the server process and its children: the model worker and any
command), and ``agent/ping`` latency from this client every 10 ms meanwhile. The baseline,
in the same server and hour: one run of the same steps in the user's own tree (edits
through ``workspace/applyEdit``). Goal: ping p99 ≤ 10 ms with 4 worktree runs streaming.
Worktree creation (a snapshot commit of the user's tree, ``git worktree add``) is part of
each run's time.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from agentls_e2e import AgentClient, server_command  # noqa: E402
from server_responsiveness import make_sources, pct, ping, rss_bytes, start, stop  # noqa: E402

from agentls.agent.llm.scripted_server import Turn, call  # noqa: E402
from agentls.agent.llm.scripted_server_process import (  # noqa: E402
    RemoteScriptedServer,
    spawn_scripted_server,
)

PROSE = "".join(f"token{i} " for i in range(120))


def script(model: RemoteScriptedServer, runs: int, steps: int) -> None:
    """``runs × steps`` identical turns: each streams ~1 kB and writes a file. Every run
    stops at its step limit, so turns taken from the shared queue in any order give each
    run the same work."""
    for i in range(runs * steps):
        content = f"VALUE = {i}\n" * 20
        model.add(
            "bench",
            Turn(
                text=PROSE,
                tool_calls=[call("write_file", {"path": f"out/f{i}.py", "content": content})],
                chunk_size=8,
                chunk_delay=0.005,
            ),
        )


def tree_rss(pid: int) -> int:
    """RSS of ``pid`` and its descendants."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    total = rss_bytes(pid)
    for child in found.stdout.split():
        try:
            total += tree_rss(int(child))
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


async def measure(
    client: AgentClient, runs: list[asyncio.Future[object]]
) -> tuple[float, list[float], int, list[float]]:
    """Wall time (s) until every run ended, the pings meanwhile (ms), peak RSS (bytes),
    and this client's own loop lag meanwhile (ms): how late a 2 ms sleep wakes. A ping's
    time includes this Python client reading every notification the runs send, which an
    editor's client does in a fraction of the time; the lag shows that share."""
    assert client._server is not None
    pid = client._server.pid
    started = time.perf_counter()
    pings: list[float] = []
    peak = 0

    async def sample_memory() -> None:
        # Beside the pings (pgrep and /proc take tens of ms): the pings keep their pace.
        nonlocal peak
        while True:
            peak = max(peak, await asyncio.to_thread(tree_rss, pid))
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample_memory())
    lags: list[float] = []

    async def client_lag() -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.002)
            lags.append((time.perf_counter() - t - 0.002) * 1000)

    lagger = asyncio.create_task(client_lag())
    while not all(run.done() for run in runs):
        pings.append(await ping(client))
        await asyncio.sleep(0.01)
    wall = time.perf_counter() - started
    sampler.cancel()
    lagger.cancel()
    for run in runs:
        result = run.result()
        status = getattr(result, "status", None)
        assert status in ("success", "partial"), result
    return wall, pings, peak, lags


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=4, help="steps (file writes) per run")
    parser.add_argument("--files", type=int, default=300, help="files in the repository")
    args = parser.parse_args()

    rows: list[tuple[str, float, list[float], int, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp, spawn_scripted_server() as model:
        root = Path(tmp) / "repo"
        root.mkdir()
        make_sources(root, args.files)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "start")
        options = {"llm": {"model": "openai/bench", "api_base": model.api_base, "retries": 0}}
        client, _ = await start(server_command(), root, options)
        try:
            client.protocol.notify("agent/prepare", {})
            model.add("bench", Turn(text="warm"))
            await client.run(prompt="warm up", runId="warm", confirmMode="yolo")

            script(model, 1, args.steps)
            own = client.run(prompt="own tree", confirmMode="yolo", maxSteps=args.steps)
            wall, pings, peak, lags = await measure(client, [own])
            rows.append(("1 run in the user's tree (baseline)", wall, pings, peak, lags))

            for n in (1, 2, 4):
                script(model, n, args.steps)
                runs = [
                    client.run(
                        prompt=f"task {i}",
                        confirmMode="yolo",
                        maxSteps=args.steps,
                        worktree={"name": f"bench-{n}-{i}"},
                    )
                    for i in range(n)
                ]
                wall, pings, peak, lags = await measure(client, runs)
                rows.append((f"{n} worktree run(s) at once", wall, pings, peak, lags))
        finally:
            await stop(client)

    base_wall = rows[0][1]
    print(f"{args.steps} steps per run, {args.files} files in the repository")
    print()
    print(
        f"| {'what':<36} | {'wall s':>6} | {'vs baseline':>11} | {'per run s':>9} | "
        f"{'peak RSS MB':>11} | {'ping p50 ms':>11} | {'ping p99 ms':>11} | {'pings':>5} | "
        f"{'client lag p99 ms':>17} |"
    )
    print(
        f"| {'-' * 36} | {'-' * 6}: | {'-' * 11}: | {'-' * 9}: | {'-' * 11}: | "
        f"{'-' * 11}: | {'-' * 11}: | {'-' * 5}: | {'-' * 17}: |"
    )
    for name, wall, pings, peak, lags in rows:
        n = int(name.split()[0])
        print(
            f"| {name:<36} | {wall:6.2f} | {wall / base_wall:10.2f}x | {wall / n:9.2f} | "
            f"{peak / 2**20:11.0f} | {pct(pings, 0.5):11.2f} | {pct(pings, 0.99):11.2f} | "
            f"{len(pings):5d} | {pct(lags, 0.99):17.2f} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
