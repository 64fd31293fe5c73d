"""How fast agentls starts: spawn → ``initialize`` answered (the language server), and
start → first model request and answer → exit (``agentls run``, ``agentls acp``, the
editor's model worker), each against a floor.

    .venv/bin/python bench/startup.py first-request [--runs 5] [--files 323] [--compare SRC]
    .venv/bin/python bench/startup.py initialize [--spawns 9] [--first-requests N]

``first-request`` (see ``bench/startup_first_request.py``): one local scripted model server
answers "Say hello." with "Hello!"; a generated workspace of ``--files`` files; each
contender is started ``--runs`` times, interleaved, and the median is shown. The floor is
a bare ``python`` that posts the same request (the body agentls sent, ~4.8k tokens) with
the standard library. Peer CLIs on PATH (aider, codex, opencode) are driven against the
same server; absent ones are named and skipped. ``--compare SRC`` adds the run, ACP and
editor contenders of another checkout (``git archive <commit> | tar -x -C DIR``, then
``DIR/src``), interleaved with these: a before/after in the same minutes.

``initialize``: launch lines are the ``agentls --stdio`` console script, ``python -P -m
agentls --stdio``, and ``python -P -m agentls.server --stdio``. The client is the same few
lines of JSON-RPC for all of them (so its own cost is equal), the spawns are interleaved
(so a busy moment of a shared machine hits every line alike), and the table gives the
median and minimum with the median's ratio to the bare pygls server. Goal: at most 1.2x
through every launch line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

BARE_PYGLS = "from pygls.lsp.server import LanguageServer\nLanguageServer('bare', '0').start_io()\n"
GOAL = 1.2


def launch_lines() -> dict[str, list[str]]:
    script = Path(sys.executable).with_name("agentls")
    return {
        "bare pygls": [sys.executable, "-P", "-c", BARE_PYGLS],
        "agentls --stdio": [str(script), "--stdio"],
        "python -P -m agentls --stdio": [sys.executable, "-P", "-m", "agentls", "--stdio"],
        "python -P -m agentls.server --stdio": [
            sys.executable,
            "-P",
            "-m",
            "agentls.server",
            "--stdio",
        ],
    }


def frame(payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def read_message(stream: asyncio.StreamReader) -> dict[str, object]:
    length = 0
    while True:
        line = await stream.readline()
        if not line:
            raise RuntimeError("the server closed its output before answering")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    message: dict[str, object] = json.loads(await stream.readexactly(length))
    return message


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def time_initialize(command: list[str], root: Path) -> tuple[float, float]:
    """Seconds from spawning ``command`` to its answer to ``initialize``, and the CPU
    seconds the process used in all (to its exit right after: a load-proof companion)."""
    cpu_before = children_cpu()
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    spawned = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=root,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    uri = root.as_uri()
    process.stdin.write(
        frame(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": os.getpid(), "rootUri": uri, "capabilities": {}},
            }
        )
    )
    await process.stdin.drain()
    while True:
        message = await read_message(process.stdout)
        if message.get("id") == 1:
            break
    elapsed = time.perf_counter() - spawned
    for payload in (
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ):
        process.stdin.write(frame(payload))
    try:
        await process.stdin.drain()
        await asyncio.wait_for(process.wait(), 10)
    except (TimeoutError, ConnectionError):
        process.kill()
        await process.wait()
    return elapsed, children_cpu() - cpu_before


async def time_first_requests(command: list[str], root: Path) -> tuple[float, float, float]:
    """Right after ``initialize`` is answered (and ``initialized`` sent): ms until
    ``agent/ping`` (no params), ``agent/cancel`` (params read as their model, which is
    not loaded yet) and a second ``agent/ping`` sent after it are answered."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=root,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    init = {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}}
    process.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
    await process.stdin.drain()
    while (await read_message(process.stdout)).get("id") != 1:
        pass
    answered = time.perf_counter()
    first: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "agent/ping", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "agent/cancel", "params": {"runId": "none"}},
        {"jsonrpc": "2.0", "id": 4, "method": "agent/ping", "params": {}},
    ]
    for payload in first:
        process.stdin.write(frame(payload))
    await process.stdin.drain()
    at: dict[object, float] = {}
    while len(at) < 3:
        message = await read_message(process.stdout)
        if message.get("id") in (2, 3, 4):
            at[message["id"]] = (time.perf_counter() - answered) * 1000
    last: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 5, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    for payload in last:
        process.stdin.write(frame(payload))
    try:
        await process.stdin.drain()
        await asyncio.wait_for(process.wait(), 30)
    except (TimeoutError, ConnectionError):
        process.kill()
        await process.wait()
    return at[2], at[3], at[4]


def first_requests_table(samples: list[tuple[float, float, float]]) -> None:
    print()
    print(f"right after initialize (`python -P -m agentls --stdio`, {len(samples)} spawns):")
    print()
    print("| request, sent at once after `initialized` | median ms | max ms |")
    print("| --- | ---: | ---: |")
    names = (
        "`agent/ping`",
        "`agent/cancel` (params need the models)",
        "`agent/ping` sent after it",
    )
    for name, values in zip(names, zip(*samples, strict=True), strict=True):
        print(f"| {name} | {statistics.median(values):.0f} | {max(values):.0f} |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", choices=["first-request", "initialize"])
    parser.add_argument("--spawns", type=int, default=9, help="spawns per launch line")
    parser.add_argument(
        "--first-requests",
        type=int,
        default=0,
        metavar="N",
        help="also time the first agent/* requests after initialize, over N spawns",
    )
    parser.add_argument("--runs", type=int, default=5, help="first-request: starts each")
    parser.add_argument("--files", type=int, default=323, help="first-request: workspace size")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="SRC",
        help="first-request: also start the agentls of another checkout's src/ ('before')",
    )
    args = parser.parse_args()
    if args.part != "initialize":
        from startup_first_request import first_request_tables

        await asyncio.to_thread(first_request_tables, args.runs, args.files, args.compare)
        return
    lines = launch_lines()
    times: dict[str, list[float]] = {name: [] for name in lines}
    cpu: dict[str, list[float]] = {name: [] for name in lines}
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "app.py").write_text("x = 1\n")
        for command in lines.values():  # one warm-up each: the OS file cache
            await time_initialize(command, root)
        for _ in range(args.spawns):
            for name, command in lines.items():
                wall, used = await time_initialize(command, root)
                times[name].append(wall)
                cpu[name].append(used)
        module_line = lines["python -P -m agentls --stdio"]
        first = [await time_first_requests(module_line, root) for _ in range(args.first_requests)]
    bare = statistics.median(times["bare pygls"])
    bare_cpu = statistics.median(cpu["bare pygls"])
    print(f"spawn → initialize answered, {args.spawns} interleaved spawns each")
    print()
    print(
        "| launch line | median ms | min ms | ratio to bare pygls (median) "
        "| CPU ms, spawn to exit (median) | CPU ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, values in times.items():
        median = statistics.median(values)
        used = statistics.median(cpu[name])
        print(
            f"| `{name}` | {median * 1000:.0f} | {min(values) * 1000:.0f} | {median / bare:.2f} "
            f"| {used * 1000:.0f} | {used / bare_cpu:.2f} |"
        )
    worst = max(statistics.median(v) / bare for n, v in times.items() if n != "bare pygls")
    print()
    print(f"worst ratio {worst:.2f} (goal ≤ {GOAL}): {'met' if worst <= GOAL else 'NOT met'}")
    if first:
        first_requests_table(first)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (wall times mean little above ~2)")


if __name__ == "__main__":
    asyncio.run(main())
