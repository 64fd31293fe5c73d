"""How long an edit's result waits for its problems, with a real language server.

An edit goes through ``ProblemCheckingFiles`` over the disk, as in a CLI run, with
basedpyright started by ``LanguageServers`` (installed by scripts/ensure_language_servers.sh).
The wait is what the edit's result spends after the file is written (``last_wait``): the
baseline it is compared with is measured in the same run, basedpyright alone driven by a
bare pygls client: the time from ``didChange`` to its ``publishDiagnostics`` for that
version. Goals: p95 ≤ 1.5 s when problems arrive, 0 ms added when nothing checks the file.

    python bench/diagnostics_wait.py [--edits 20] [--cold 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from agentls.agent.config.models import DiagnosticsConfig  # noqa: E402
from agentls.agent.problems import ProblemCheckingFiles  # noqa: E402
from agentls.agent.workspace import DiskFileAccess, FileChange  # noqa: E402
from agentls.langservers import LanguageServers  # noqa: E402

APP = (
    "from helpers import scale\n\n\n"
    "def total(prices: list[float]) -> float:\n"
    "    total_price = scale(sum(prices))\n"
    "    return total_price\n"
)
HELPERS = "def scale(value: float) -> float:\n    return value * 1.2\n"
BROKEN = APP.replace("    return total_price\n", "    return str(total_price)\n")
#: A change no checker cares about.
CLEAN = APP.replace("def total", "# totals\ndef total")
WAIT_MS = 10_000


def language_server_bin() -> Path:
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "ensure_language_servers.sh")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "AGENTLS_PYTHON": sys.executable},
    )
    return Path(done.stdout.strip().splitlines()[-1])


def workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="agentls-bench-diag-"))
    (root / "app.py").write_text(APP)
    (root / "helpers.py").write_text(HELPERS)
    (root / "README.md").write_text("# bench\n")
    return root


def stats(values: list[float]) -> tuple[float, float]:
    """p50 and p95, in ms."""
    ordered = sorted(v * 1000 for v in values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


# -- the baseline: basedpyright alone --------------------------------------------------------


async def bare_publish_times(program: str, root: Path, edits: int) -> list[float]:
    """didChange → publishDiagnostics of that version, over a bare pygls client."""
    client = LanguageClient("bench", "1")
    published: dict[int, float] = {}
    arrived = asyncio.Event()

    def publish(params: lsp.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            published[params.version] = time.perf_counter()
            arrived.set()

    client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(publish)
    client.feature(lsp.WORKSPACE_CONFIGURATION)(lambda params: [None for _ in params.items])
    client.feature(lsp.WINDOW_LOG_MESSAGE)(lambda params: None)
    await client.start_io(program, "--stdio", cwd=str(root))
    caps = lsp.ClientCapabilities(
        text_document=lsp.TextDocumentClientCapabilities(
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True)
        ),
        workspace=lsp.WorkspaceClientCapabilities(configuration=True),
    )
    await client.initialize_async(
        lsp.InitializeParams(capabilities=caps, root_uri=root.as_uri(), process_id=os.getpid())
    )
    client.initialized(lsp.InitializedParams())
    uri = (root / "app.py").as_uri()
    item = lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=APP)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
    await until(lambda: 1 in published, arrived, 60)
    times = []
    for version in range(2, edits + 2):
        text = BROKEN if version % 2 == 0 else APP
        sent = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        await until(lambda v=version: v in published, arrived, 30)  # type: ignore[misc]
        times.append(published[version] - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


async def until(ready: Callable[[], bool], event: asyncio.Event, limit: float) -> None:
    deadline = time.perf_counter() + limit
    while not ready():
        event.clear()
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("basedpyright did not publish")
        try:
            await asyncio.wait_for(event.wait(), left)
        except TimeoutError:
            continue


# -- agentls ---------------------------------------------------------------------------------


def settings(servers: bool = True) -> DiagnosticsConfig:
    if servers:
        return DiagnosticsConfig(wait_ms=WAIT_MS)
    return DiagnosticsConfig(wait_ms=WAIT_MS, servers=[])


class Edits:
    """One file edited back and forth through ProblemCheckingFiles."""

    def __init__(self, root: Path, source: LanguageServers) -> None:
        self.files = ProblemCheckingFiles(
            DiskFileAccess(root), source, wait=WAIT_MS / 1000, limit=10
        )
        self.reports: list[str] = []

    async def edit(self, path: str, new: str) -> float:
        """The seconds the edit's result waited for problems."""
        old = (await self.files.inner.read_text(path)).text
        outcome = await self.files.apply([FileChange(path, new, old)], confirm=False)
        assert outcome.status == "applied", outcome
        self.reports.append(outcome.problems)
        return self.files.last_wait

    async def whole(self, path: str, new: str) -> float:
        """The seconds the whole apply took (the write and the wait)."""
        old = (await self.files.inner.read_text(path)).text
        started = time.perf_counter()
        await self.files.apply([FileChange(path, new, old)], confirm=False)
        return time.perf_counter() - started


async def warm(root: Path, edits: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {"arrive": [], "leave": [], "clean": []}
    found = 0
    async with LanguageServers(settings(), root, trusted=True) as source:
        run = Edits(root, source)
        await run.edit("app.py", APP)  # nothing changes: warms the server on this file
        await run.files.read_text("app.py")
        await source.start_for("app.py")
        await run.edit("app.py", CLEAN)
        await run.edit("app.py", APP)
        for _ in range(edits):
            results["arrive"].append(await run.edit("app.py", BROKEN))
            found += 'Type "str" is not assignable to return type "float"' in run.reports[-1]
            results["leave"].append(await run.edit("app.py", APP))
            results["clean"].append(await run.edit("app.py", CLEAN))
            await run.edit("app.py", APP)
    results["found"] = [float(found)]
    return results


async def cold(root: Path, trials: int, *, read_first: bool) -> list[float]:
    waits = []
    for _ in range(trials):
        (root / "app.py").write_text(APP)
        async with LanguageServers(settings(), root, trusted=True) as source:
            run = Edits(root, source)
            if read_first:
                await run.files.read_text("app.py")  # starts the server, opens the file
                await asyncio.sleep(2.0)  # the model reads and thinks
            waits.append(await run.edit("app.py", BROKEN))
            assert 'not assignable to return type "float"' in run.reports[-1], run.reports[-1]
    return waits


async def no_source(root: Path, edits: int) -> dict[str, list[float]]:
    """The whole apply: the plain FileAccess (baseline), no server for .py, a README."""
    plain = DiskFileAccess(root)
    out: dict[str, list[float]] = {
        "plain": [],
        "none": [],
        "readme": [],
        "none-wait": [],
        "readme-wait": [],
    }
    for _ in range(edits):
        old = (await plain.read_text("app.py")).text
        started = time.perf_counter()
        await plain.apply([FileChange("app.py", CLEAN if old == APP else APP, old)], confirm=False)
        out["plain"].append(time.perf_counter() - started)
    async with LanguageServers(settings(servers=False), root, trusted=True) as nothing:
        run = Edits(root, nothing)
        for i in range(edits):
            out["none"].append(await run.whole("app.py", CLEAN if i % 2 == 0 else APP))
            out["none-wait"].append(run.files.last_wait)
    async with LanguageServers(settings(), root, trusted=True) as source:
        run = Edits(root, source)
        for i in range(edits):
            out["readme"].append(await run.whole("README.md", f"# bench {i}\n"))
            out["readme-wait"].append(run.files.last_wait)
        assert not source._connections, "a README started a language server"
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--cold", type=int, default=3)
    args = parser.parse_args()
    bin_dir = language_server_bin()
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    program = str(bin_dir / "basedpyright-langserver")
    root = workspace()

    base = await bare_publish_times(program, root, 2 * args.edits)
    warm_runs = await warm(root, args.edits)
    cold_read = await cold(root, args.cold, read_first=True)
    cold_edit = await cold(root, args.cold, read_first=False)
    quiet = await no_source(root, args.edits)

    base50, _ = stats(base)
    rows = [
        ("basedpyright alone: didChange → publishDiagnostics (baseline)", base),
        ("edit that introduces a type error (problems arrive)", warm_runs["arrive"]),
        ("edit that fixes it (problems leave)", warm_runs["leave"]),
        ("clean edit (a comment; same problems)", warm_runs["clean"]),
        ("first edit of a run, 2 s after its read (server started by the read)", cold_read),
        ("first edit of a run, nothing read before (server starts with the edit)", cold_edit),
    ]
    print(f"\nbasedpyright from {bin_dir}; wait_ms {WAIT_MS}; {args.edits} edits each\n")
    print("| what the edit's result waits for | n | p50 ms | p95 ms | p50 vs baseline |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, values in rows:
        p50, p95 = stats(values)
        print(f"| {name} | {len(values)} | {p50:.0f} | {p95:.0f} | {p50 / base50:.2f}x |")
    plain50, plain95 = stats(quiet["plain"])
    print("\n| nothing checks the file: the whole apply | n | p50 ms | p95 ms | wait ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    plain = len(quiet["plain"])
    print(f"| plain FileAccess (baseline) | {plain} | {plain50:.2f} | {plain95:.2f} | - |")
    for name, key in (
        ("no language server for .py", "none"),
        ("README.md (no server lists .md)", "readme"),
    ):
        p50, p95 = stats(quiet[key])
        waited = max(quiet[f"{key}-wait"]) * 1000
        print(f"| {name} | {len(quiet[key])} | {p50:.2f} | {p95:.2f} | {waited:.0f} |")
    arrive95 = stats(warm_runs["arrive"])[1]
    found = int(warm_runs["found"][0])
    verdict = "met" if arrive95 <= 1500 else "NOT met"
    print(
        f"\nproblems arrive: p95 {arrive95:.0f} ms (goal ≤ 1500 ms: {verdict}); "
        f"the new error was reported {found}/{args.edits} times"
    )


if __name__ == "__main__":
    asyncio.run(main())
