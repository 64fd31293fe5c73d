"""A day of runs: one real language server driven through a long mixed session, measured as
it goes, to see whether it is the same after hundreds of runs as after ten.

    .venv/bin/python bench/soak.py [--runs 300] [--every 10] [--keep-sessions 20]

One server (``python -P -m agentls --stdio``) serves one git workspace against the scripted
model server (in its own process, as a real provider would be), with a client that declares
inline review, as VS Code does. The session repeats a cycle of ten runs:

- an edit under inline review (read, then a write that changes two lines of one of four
  open modules), the user keeping one hunk and undoing the other (``agent/reviewDecision``);
- a shell command (``execute_command``);
- a tool of an MCP server the workspace declares (``tests/fixtures/mcp_server.py`` over
  stdio; the folder trusted and the server approved);
- an edit whose hunks the user keeps, then undone whole by ``agent/restore``;
- a session continued (the same conversation every cycle);
- a run cancelled while it streams (``agent/cancel``);
- a run steered while it streams (``agent/message`` with ``mode: steer``);
- another command;
- a run in a worktree of its own, applied (``agent/applyWorktree``) then discarded, or,
  every other cycle, discarded unapplied;
- an edit whose hunks the user keeps.

Meanwhile the editor types into another open document (``didChange`` every 50 ms) and
pings the server (``agent/ping`` every 100 ms; its round trip, measured by the client).
Every ``--every`` runs, with no run in flight, it records the RSS of the server, the model
worker and the symbol process, the server's open descriptors, threads, child processes and
zombies (from ``/proc``), the sessions and the bytes of session files and checkpoints on
disk, and the pings since the previous record (p50, p99).

Goals, after warm-up (the first tenth of the runs): RSS grows at most 10 MB per 100 runs in
each process (the slope of a least-squares line); descriptors and children are back to
their baseline (the first record after warm-up) at every record, threads too within the
idle threads asyncio's default executor keeps (min(32, cores + 4)); no zombies;
ping p99 in the last tenth at most 1.5x the first tenth's; at most ``sessions.keep``
sessions on disk (the retention the soak sets: the oldest are removed with their
checkpoints, each session's checkpoints are capped at 64 MiB).

``soak()`` is the library function: tests/e2e/test_soak.py runs 30 runs of it and checks the
goals that do not depend on timing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "bench", ROOT / "tests" / "e2e"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from agentls_e2e import (  # noqa: E402
    VSCODE,
    AgentClient,
    git,
    make_client,
    plain,
    server_command,
    server_env,
)
from lsprotocol import types  # noqa: E402
from procfs import child_named, children, cmdline, descendants, open_fds, status_field  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pytest_lsp import ClientServerConfig  # noqa: E402

from agentls.agent.llm.scripted_server import Turn, call  # noqa: E402

MB = 1024 * 1024
MODEL = "soak"
MCP_SERVER = ROOT / "tests" / "fixtures" / "mcp_server.py"
WORKER = ("agentls.agent.llm.worker", "model_worker_zygote.py")
SYMBOLS = "agentls.indexer.symbols_process"
#: The most threads asyncio's default executor keeps (concurrent.futures' default).
POOL_THREADS = min(32, (os.cpu_count() or 1) + 4)
#: Each session's checkpoints are capped there (agent/checkpoints/store.py).
CHECKPOINT_CAP = 64 * MB
INLINE = types.ClientCapabilities(
    workspace=VSCODE.workspace,
    window=VSCODE.window,
    experimental={"agentls": {"askUser": True, "inlineReview": True, "approveProgram": True}},
)
EDITED = [f"src/mod{n}.py" for n in range(4)]
TYPED = "src/typing_here.py"
SLOW = {"chunk_size": 2, "chunk_delay": 0.02}


class ScriptedModel(Protocol):
    """The scripted model server, in this process or in its own (its client)."""

    @property
    def api_base(self) -> str: ...

    def add(self, model: str | None, *turns: Turn) -> None: ...


# -- storage on disk ------------------------------------------------------------------------


def tree_bytes(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(dirpath) / name).lstat().st_size
    return total


# -- what is recorded ------------------------------------------------------------------------


@dataclass
class Sample:
    """One record, taken with no run in flight."""

    runs: int
    seconds: float
    server_mb: float
    worker_mb: float
    symbols_mb: float
    fds: int
    threads: int
    children: int
    zombies: int
    sessions: int
    session_bytes: int
    checkpoint_bytes: int
    #: Round trips (ms) of the pings sent since the previous record.
    pings: list[float] = field(repr=False, default_factory=list)
    #: ``agent/ping``'s runs in flight (0 when nothing is left behind).
    in_flight: int = 0
    #: What the children were (pid: command), for a record whose children differ.
    child_commands: list[str] = field(repr=False, default_factory=list)

    def ping(self, q: float) -> float:
        return percentile(self.pings, q)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def slope_per_100(samples: list[Sample], value: Callable[[Sample], float]) -> float:
    """The least-squares growth of ``value`` per 100 runs."""
    if len(samples) < 2:
        return 0.0
    xs = [float(s.runs) for s in samples]
    ys = [value(s) for s in samples]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return 100 * sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


@dataclass
class Goal:
    name: str
    met: bool
    detail: str


@dataclass
class SoakReport:
    runs: int
    keep_sessions: int | None
    samples: list[Sample]
    statuses: dict[str, int]
    seconds: float
    #: Runs whose result was not what the harness scripted (kind, run id, status).
    surprises: list[str] = field(default_factory=list)

    @property
    def warm(self) -> list[Sample]:
        """The records after warm-up (the first tenth of the runs)."""
        after = [s for s in self.samples if s.runs >= max(1, self.runs // 10)]
        return after or self.samples[-1:]

    @property
    def baseline(self) -> Sample:
        return self.warm[0]

    def goals(self, *, timing: bool = True) -> list[Goal]:
        base, warm = self.baseline, self.warm
        goals: list[Goal] = []
        if timing:
            for name, value in (
                ("server", lambda s: s.server_mb),
                ("model worker", lambda s: s.worker_mb),
                ("symbol process", lambda s: s.symbols_mb),
            ):
                growth = slope_per_100(warm, value)
                goals.append(
                    Goal(f"RSS of the {name}", growth <= 10, f"{growth:+.1f} MB per 100 runs")
                )
        for name, value, headroom in (
            ("open descriptors", lambda s: s.fds, 0),
            # The default executor makes its threads when several calls wait at once and
            # keeps them idle (at most min(32, cores + 4)); anyio's (the MCP SDK's) end
            # after 10 s idle: a thread count may sit that far above the baseline.
            ("threads", lambda s: s.threads, POOL_THREADS),
            ("child processes", lambda s: s.children, 0),
        ):
            above = [(s.runs, value(s)) for s in warm if value(s) > value(base) + headroom]
            allowed = f" (+{headroom} idle pool threads)" if headroom else ""
            goals.append(
                Goal(
                    f"{name} back to baseline",
                    not above,
                    f"baseline {value(base)}{allowed}, highest {max(value(s) for s in warm)}"
                    + (f"; above it at {above}" if above else ""),
                )
            )
        zombies = [(s.runs, s.zombies) for s in self.samples if s.zombies]
        goals.append(Goal("no zombies", not zombies, f"{zombies or 'none'}"))
        left = [(s.runs, s.in_flight) for s in self.samples if s.in_flight]
        goals.append(Goal("no run left in flight", not left, f"{left or 'none'}"))
        if timing:
            first, last = self.tenth_pings(0), self.tenth_pings(9)
            p99_first, p99_last = percentile(first, 0.99), percentile(last, 0.99)
            goals.append(
                Goal(
                    "ping p99, last tenth against the first",
                    p99_last <= 1.5 * p99_first,
                    f"{p99_first:.1f} -> {p99_last:.1f} ms "
                    f"({p99_last / max(p99_first, 1e-9):.2f}x)",
                )
            )
        most = max(s.sessions for s in self.samples)
        biggest = max(s.checkpoint_bytes for s in self.samples)
        keep = self.keep_sessions
        bounded = keep is not None and most <= keep and biggest <= keep * CHECKPOINT_CAP
        goals.append(
            Goal(
                "storage within the retention",
                bounded,
                f"at most {most} sessions (keep {keep if keep is not None else 'unset'}), "
                f"checkpoints at most {biggest / MB:.2f} MB",
            )
        )
        return goals

    def tenth_pings(self, tenth: int) -> list[float]:
        """The pings of the records that fall in one tenth of the runs."""
        low, high = self.runs * tenth / 10, self.runs * (tenth + 1) / 10
        chosen = [s for s in self.samples if low < s.runs <= high] or (
            self.samples[:1] if tenth == 0 else self.samples[-1:]
        )
        return [p for s in chosen for p in s.pings]

    def table(self) -> str:
        lines = [
            "| runs | min | server MB | worker MB | symbols MB | fds | threads | children "
            "| zombies | sessions | session KB | checkpoint KB | ping p50 ms | ping p99 ms |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
            "| ---: | ---: | ---: |",
        ]
        for s in self.samples:
            lines.append(
                f"| {s.runs} | {s.seconds / 60:.1f} | {s.server_mb:.1f} | {s.worker_mb:.1f} "
                f"| {s.symbols_mb:.1f} | {s.fds} | {s.threads} | {s.children} | {s.zombies} "
                f"| {s.sessions} | {s.session_bytes / 1024:.0f} "
                f"| {s.checkpoint_bytes / 1024:.0f} | {s.ping(0.5):.1f} | {s.ping(0.99):.1f} |"
            )
        return "\n".join(lines)

    def summary(self, *, timing: bool = True) -> str:
        lines = [
            f"- **{'met' if g.met else 'NOT met'}**: {g.name}: {g.detail}"
            for g in self.goals(timing=timing)
        ]
        shown = ", ".join(f"{k} {v}" for k, v in sorted(self.statuses.items()))
        lines.append(f"- runs by status: {shown}; {self.seconds / 60:.1f} min in all")
        if self.surprises:
            lines.append(f"- unexpected results: {self.surprises[:10]}")
        return "\n".join(lines)


# -- the workspace ---------------------------------------------------------------------------


def module_text(n: int) -> str:
    return "".join(f"value_{n}_{i} = {i}\n" for i in range(1, 11))


def make_workspace(root: Path) -> None:
    """A small repository with one commit, four modules to edit, one to type into, and an
    MCP server declared in ``.mcp.json``."""
    (root / "src").mkdir(parents=True)
    for n, rel in enumerate(EDITED):
        (root / rel).write_text(module_text(n))
    (root / TYPED).write_text("# typed into while the runs go on\n")
    (root / "README.md").write_text("# soak\n")
    (root / ".gitignore").write_text(".agentls/\n")
    servers = {"local": {"command": sys.executable, "args": [str(MCP_SERVER), "--stdio"]}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")


def trust(root: Path) -> None:
    """What a user does once: trust the folder and approve its MCP server (in the user
    config directory of this process's ``AGENTLS_CONFIG_DIR``, which the server inherits)."""
    from agentls.agent.config.trust import TrustStore
    from agentls.agent.mcp.approval import approve_workspace_servers

    TrustStore().set_trusted(root, True)
    approve_workspace_servers(root)


def storage(sessions: Path) -> tuple[int, int, int]:
    """(sessions, bytes of session files, bytes of checkpoints) on disk."""
    try:
        entries = list(sessions.iterdir())
    except OSError:
        return 0, 0, 0
    files = [p for p in entries if p.suffix == ".jsonl" and p.is_file()]
    session_bytes = sum(p.stat().st_size for p in files)
    checkpoint_bytes = sum(tree_bytes(p) for p in entries if p.suffix == ".checkpoints")
    return len(files), session_bytes, checkpoint_bytes


# -- the session -----------------------------------------------------------------------------


class Soak:
    """One server, its client and the cycle of runs."""

    def __init__(self, client: AgentClient, server: int, model: ScriptedModel, root: Path) -> None:
        self.client = client
        self.server = server
        self.model = model
        self.root = root
        self.runs = 0
        self.statuses: dict[str, int] = {}
        self.surprises: list[str] = []
        self.pings: list[float] = []
        self.uris = {rel: client.open(rel, (root / rel).read_text()) for rel in EDITED}
        self.typed = client.open(TYPED, (root / TYPED).read_text())
        self.chat_session: str | None = None
        # A run in a worktree asks about the MCP server its copy of the workspace declares
        # (another folder): the user allows it, as they did in their own tree.
        client.mcp_answers = {"local": True}
        client.approvals = self.unexpected_question

    def unexpected_question(self, params: types.ShowMessageRequestParams) -> None:
        self.surprises.append(f"asked at run {self.runs}: {params.message[:120]}")

    # -- the editor meanwhile
    async def type_and_ping(self, stop: asyncio.Event) -> None:
        keys = 0
        next_ping = 0.0
        while not stop.is_set():
            keys += 1
            _version, text = self.client.docs[self.typed]
            text = text + ("\n" if keys % 40 == 0 else "x")
            if len(text) > 4000:  # the user cleans up now and then
                text = "# typed into while the runs go on\n"
            self.client.change(self.typed, text)
            now = time.perf_counter()
            if now >= next_ping:
                next_ping = now + 0.1
                sent = time.perf_counter()
                await self.client.request("agent/ping", {})
                self.pings.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(0.05)

    # -- one run
    async def run(self, kind: str, expect: str = "success", **params: Any) -> dict[str, Any]:
        self.runs += 1
        run_id = params.setdefault("runId", f"{kind}-{self.runs}")
        params.setdefault("prompt", f"{kind}, please")
        result: dict[str, Any] = plain(await self.run_started(**params))
        status = str(result.get("status"))
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status != expect:
            self.surprises.append(f"{kind} {run_id}: {status} {str(result.get('output'))[:120]}")
        return result

    def run_started(self, **params: Any) -> asyncio.Future[Any]:
        return self.client.run(**params)

    async def edit(self, rel: str, *, undo_second: bool) -> dict[str, Any]:
        """Read, then change lines 2 and 8 of ``rel``; the user keeps hunk 1 and keeps or
        undoes hunk 2."""
        uri = self.uris[rel]
        old = self.client.docs[uri][1]
        lines = old.splitlines(keepends=True)
        new_lines = list(lines)
        new_lines[1] = lines[1].rstrip("\n").split(" = ")[0] + f" = {self.runs + 1}0\n"
        new_lines[7] = lines[7].rstrip("\n").split(" = ")[0] + f" = {self.runs + 1}1\n"
        new = "".join(new_lines)
        self.model.add(
            MODEL,
            Turn(tool_calls=[call("read_file", {"path": rel})]),
            Turn(tool_calls=[call("write_file", {"path": rel, "content": new})]),
            Turn(text="Changed two values."),
        )
        sent = len(self.client.edits)
        result = await self.run("edit")
        if len(self.client.edits) <= sent:
            self.surprises.append(f"edit {result.get('runId')}: no edit reached the editor")
            return result
        annotations = self.client.edits[sent].edit.change_annotations or {}
        ids = sorted(annotations, key=lambda ident: int(ident.rsplit(":", 1)[1]))
        decisions = [{"id": ids[0], "outcome": "kept"}]
        if len(ids) > 1:
            if undo_second:
                undone = list(new_lines)
                undone[7] = lines[7]
                self.client.change(uri, "".join(undone))
            decisions += [
                {"id": i, "outcome": "undone" if undo_second else "kept"} for i in ids[1:]
            ]
        version = self.client.docs[uri][0]
        self.client.protocol.notify(
            "agent/reviewDecision", {"uri": uri, "version": version, "hunks": decisions}
        )
        return result

    async def command(self) -> None:
        self.model.add(
            MODEL,
            Turn(tool_calls=[call("execute_command", {"command": "echo soak && ls src"})]),
            Turn(text="Listed."),
        )
        await self.run("command", confirmMode="yolo")

    async def mcp(self) -> None:
        self.model.add(
            MODEL,
            Turn(tool_calls=[call("mcp_local_add", {"a": self.runs, "b": 1})]),
            Turn(text="Added."),
        )
        await self.run("mcp", confirmMode="yolo")

    async def restore(self) -> None:
        result = await self.edit(EDITED[3], undo_second=False)
        answer = plain(
            await self.client.request("agent/restore", {"runId": result["runId"], "force": True})
        )
        if answer["status"] != "applied":
            self.surprises.append(f"restore {result['runId']}: {answer}")

    async def continued(self) -> None:
        self.model.add(MODEL, Turn(text="Still here, and I remember."))
        params: dict[str, Any] = {"prompt": "where were we?"}
        if self.chat_session is not None:
            params["sessionId"] = self.chat_session
        result = await self.run("continue", **params)
        self.chat_session = result.get("sessionId") or self.chat_session

    async def streaming(self, kind: str) -> asyncio.Future[Any]:
        self.runs += 1
        run_id = f"{kind}-{self.runs}"
        running = self.run_started(prompt="write at length", runId=run_id)
        await self.client.wait_for(
            lambda: bool(self.client.of("agent/stream", run_id)), what=f"{run_id} streaming"
        )
        return running

    async def cancel(self) -> None:
        self.model.add(MODEL, Turn(text="A long answer. " * 40, **SLOW))
        running = await self.streaming("cancel")
        run_id = f"cancel-{self.runs}"
        await self.client.request("agent/cancel", {"runId": run_id})
        self.tally("cancel", run_id, plain(await running), ("partial", "cancelled"))

    async def steer(self) -> None:
        self.model.add(
            MODEL, Turn(text="Going one way. " * 40, **SLOW), Turn(text="The other way.")
        )
        running = await self.streaming("steer")
        run_id = f"steer-{self.runs}"
        await self.client.request(
            "agent/message", {"runId": run_id, "text": "go the other way", "mode": "steer"}
        )
        self.tally("steer", run_id, plain(await running), ("success",))

    def tally(
        self, kind: str, run_id: str, result: dict[str, Any], expect: tuple[str, ...]
    ) -> None:
        status = str(result.get("status"))
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status not in expect:
            self.surprises.append(f"{kind} {run_id}: {status} {str(result.get('output'))[:120]}")

    async def worktree(self, apply: bool) -> None:
        name = f"soak{self.runs + 1}"
        self.model.add(
            MODEL,
            Turn(tool_calls=[call("write_file", {"path": f"{name}.txt", "content": "apart\n"})]),
            Turn(text="Written in the worktree."),
        )
        await self.run("worktree", confirmMode="yolo", worktree={"name": name})
        if apply:
            applied = plain(await self.client.request("agent/applyWorktree", {"name": name}))
            if applied["status"] != "applied":
                self.surprises.append(f"apply {name}: {applied}")
        discarded = plain(
            await self.client.request("agent/discardWorktree", {"name": name, "force": True})
        )
        if not discarded.get("discarded", True):
            self.surprises.append(f"discard {name}: {discarded}")
        # The user looked at the applied file and removed it: the tree stays the same size.
        (self.root / f"{name}.txt").unlink(missing_ok=True)

    async def cycle(self, number: int) -> list[Callable[[], Any]]:
        """The ten runs of one cycle, as steps to take in turn."""
        return [
            lambda: self.edit(EDITED[number % 3], undo_second=True),
            self.command,
            self.mcp,
            self.restore,
            self.continued,
            self.cancel,
            self.steer,
            self.command,
            lambda: self.worktree(apply=number % 2 == 0),
            lambda: self.edit(EDITED[(number + 1) % 3], undo_second=False),
        ]

    # -- a record
    async def settled(self) -> dict[str, Any]:
        """No run in flight (and a moment for what a run closes as it ends)."""
        pong: dict[str, Any] = await self.client.ping_until(
            lambda p: p["runs"] == 0, "no run in flight", limit=60
        )
        return pong

    async def sample(self, started: float, baseline_children: int | None) -> Sample:
        pong = await self.settled()
        # What a run closes after its end (a worktree's symbol process, a command's
        # sandbox) goes within a few seconds: wait for it rather than count it.
        deadline = time.monotonic() + 10
        while True:
            kids = children(self.server)
            live = [c for c, state in kids if state != "Z"]
            if baseline_children is None or len(live) <= baseline_children:
                break
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        # A descriptor a background task holds for a moment (a session write, the
        # watcher) is no leak: the fewest of a few looks a tenth of a second apart.
        fds = open_fds(self.server)
        for _ in range(5):
            if baseline_children is None:
                break
            await asyncio.sleep(0.1)
            fds = min(fds, open_fds(self.server))
        worker = child_named(self.server, WORKER)
        symbols = child_named(self.server, (SYMBOLS,))
        zombies = [c for c, state in descendants(self.server) if state == "Z"]
        sessions, session_bytes, checkpoint_bytes = storage(self.root / ".agentls" / "sessions")
        pings, self.pings = self.pings, []
        return Sample(
            runs=self.runs,
            seconds=time.monotonic() - started,
            server_mb=status_field(self.server, "VmRSS") / 1024,
            worker_mb=status_field(worker, "VmRSS") / 1024,
            symbols_mb=status_field(symbols, "VmRSS") / 1024,
            fds=fds,
            threads=status_field(self.server, "Threads"),
            children=len(live),
            zombies=len(zombies),
            sessions=sessions,
            session_bytes=session_bytes,
            checkpoint_bytes=checkpoint_bytes,
            pings=pings,
            in_flight=int(pong["runs"]),
            child_commands=[f"{c}: {cmdline(c)[:100]}" for c in live],
        )


async def start_server(
    root: Path, model: ScriptedModel, keep_sessions: int | None
) -> tuple[AgentClient, int]:
    config = ClientServerConfig(
        server_command=server_command(), server_env=server_env(), client_factory=make_client
    )
    client = await config.start()
    assert isinstance(client, AgentClient)
    client.root = root
    options: dict[str, Any] = {
        "llm": {"model": f"openai/{MODEL}", "api_base": model.api_base, "retries": 0}
    }
    if keep_sessions is not None:  # None: a server from before sessions.keep
        options["sessions"] = {"keep": keep_sessions}
    await client.initialize_session(
        types.InitializeParams(
            capabilities=INLINE,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="ws")],
            initialization_options=options,
            client_info=types.ClientInfo(name="soak"),
        )
    )
    process = client._server  # pytest-lsp's handle on the process it started
    assert process is not None
    server = process.pid
    return client, server


@contextlib.contextmanager
def workspace_dir(root: Path | None) -> Iterator[Path]:
    if root is not None:
        yield root
        return
    with tempfile.TemporaryDirectory(prefix="agentls-soak-") as tmp:
        yield Path(tmp) / "ws"


async def soak(
    model: ScriptedModel,
    *,
    runs: int = 300,
    every: int = 10,
    keep_sessions: int | None = 20,
    root: Path | None = None,
    progress: Callable[[Sample], None] | None = None,
    verbose: bool = False,
) -> SoakReport:
    """Start one server in a new workspace (under ``root``, or a temporary folder), drive it
    through ``runs`` runs of the cycle and record it every ``every`` runs (after the first
    cycle too: the warm-up's end); the server is shut down at the end."""
    with workspace_dir(root) as folder:
        make_workspace(folder)
        trust(folder)
        client, server = await start_server(folder, model, keep_sessions)
        soak_run = Soak(client, server, model, folder)
        stop = asyncio.Event()
        editor = asyncio.create_task(soak_run.type_and_ping(stop))
        started = time.monotonic()
        samples: list[Sample] = []
        try:
            await client.ping_until(lambda p: bool(p["watching"]), "the index", limit=120)
            samples.append(await soak_run.sample(started, None))
            number = 0
            while soak_run.runs < runs:
                for step in await soak_run.cycle(number):
                    if soak_run.runs >= runs:
                        break
                    if verbose:
                        print(f"run {soak_run.runs + 1}: {step}", file=sys.stderr, flush=True)
                    await step()
                    if soak_run.runs == 1:
                        # The first run starts the model worker (litellm's import): its
                        # pings say how a window starts, not how it lasts.
                        soak_run.pings.clear()
                    due = soak_run.runs % every == 0 or soak_run.runs >= runs
                    if due and samples[-1].runs != soak_run.runs:
                        base = samples[1].children if len(samples) > 1 else None
                        samples.append(await soak_run.sample(started, base))
                        if progress is not None:
                            progress(samples[-1])
                number += 1
        finally:
            stop.set()
            with contextlib.suppress(Exception):
                await editor
            try:
                await asyncio.wait_for(client.shutdown_session(), 30)
            finally:
                await client.stop()
        return SoakReport(
            runs=soak_run.runs,
            keep_sessions=keep_sessions,
            samples=samples,
            statuses=soak_run.statuses,
            seconds=time.monotonic() - started,
            surprises=soak_run.surprises,
        )


def commit() -> str:
    try:
        return git(ROOT, "rev-parse", "--short", "HEAD").strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--every", type=int, default=10, help="runs between records")
    parser.add_argument("--keep-sessions", type=int, default=20, help="sessions.keep")
    parser.add_argument(
        "--no-retention",
        action="store_true",
        help="send no sessions.keep (to measure a tree from before it existed)",
    )
    parser.add_argument("--verbose", action="store_true", help="name each run as it starts")
    args = parser.parse_args()

    from agentls.agent.llm.scripted_server_process import spawn_scripted_server

    measured = commit()  # the tree the server runs, before anything is committed meanwhile

    with tempfile.TemporaryDirectory(prefix="agentls-soak-user-") as user:
        # A user config of its own: the trust and the MCP approval the soak gives.
        os.environ["AGENTLS_CONFIG_DIR"] = user
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        with spawn_scripted_server() as model:

            def show(sample: Sample) -> None:
                print(
                    f"{sample.runs:4d} runs {sample.seconds / 60:5.1f} min  server "
                    f"{sample.server_mb:6.1f} MB  worker {sample.worker_mb:6.1f} MB  "
                    f"symbols {sample.symbols_mb:6.1f} MB  fds {sample.fds}  threads "
                    f"{sample.threads}  children {sample.children}  sessions {sample.sessions}"
                    f"  p99 {sample.ping(0.99):.1f} ms",
                    file=sys.stderr,
                    flush=True,
                )
                # The model server's record of requests would grow with the day: emptied
                # when no run is in flight (its queues are empty then too).
                model.reset()

            report = await soak(
                model,
                runs=args.runs,
                every=args.every,
                keep_sessions=None if args.no_retention else args.keep_sessions,
                progress=show,
                verbose=args.verbose,
            )
    print(f"commit {measured}, {datetime.date.today().isoformat()}, {os.cpu_count()} cores")
    print()
    print(report.table())
    print()
    print(report.summary())


if __name__ == "__main__":
    asyncio.run(main())
