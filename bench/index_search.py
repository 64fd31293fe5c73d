"""Benchmark: index build, live update latency, search latency and memory.

Corpora any machine can rebuild:
  * stdlib  — a copy of the running interpreter's standard library (~2-3k files),
              copied to .cache/bench-stdlib/ so the update test can write into it;
  * npm     — ``npm install`` of the pinned packages below into .cache/bench-npm/
              (~50k files). Needs node/npm and network the first time.

Baselines, measured in the same run: ``cat`` of the same files (the read limit) and
ripgrep (``apt-get install -y ripgrep``; rg columns are skipped when it is absent).

    .venv/bin/python bench/index_search.py            # both corpora
    .venv/bin/python bench/index_search.py --quick    # stdlib only, few iterations
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agentls.indexer import IndexSettings, IndexWatcher, RepoIndexer  # noqa: E402
from agentls.indexer.query import search_files  # noqa: E402
from agentls.indexer.search import compile_query  # noqa: E402

CACHE = REPO / ".cache"
NPM_PACKAGES = {
    "typescript": "5.4.5",
    "@babel/core": "7.24.5",
    "eslint": "8.57.0",
    "webpack": "5.91.0",
    "lodash": "4.17.21",
    "rxjs": "7.8.1",
    "@angular/core": "17.3.8",
    "date-fns": "3.6.0",
    "@mui/material": "5.15.18",
    "@emotion/react": "11.11.4",
    "@emotion/styled": "11.11.5",
    "react": "18.3.1",
    "react-dom": "18.3.1",
    "core-js": "3.37.1",
    "@mui/icons-material": "5.15.18",
}
# Index everything but .git, like `rg -uu`: the comparison is about speed, not rules.
SETTINGS = IndexSettings(
    exclude_dirs=(".git",),
    exclude_patterns=(),
    max_file_size=64_000_000,
    use_gitignore=False,
    use_git=False,
)
# (label, pattern, literal, case_sensitive) — grep is literal, search_code a regex.
PATTERNS = [
    ("rare literal", "deprecated since", True, True),
    ("common literal", "return", True, True),
    ("regex with literal", r"\w+Error\(", False, True),
    ("case-insensitive", "(?i)todo", False, True),
    ("alternation", "TODO|FIXME|XXX", False, True),
]


def stdlib_corpus() -> Path:
    dest = CACHE / "bench-stdlib"
    if not (dest / ".complete").exists():
        shutil.rmtree(dest, ignore_errors=True)
        src = Path(sysconfig.get_paths()["stdlib"])
        shutil.copytree(
            src,
            dest,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "site-packages", "dist-packages"),
        )
        (dest / ".complete").write_text("")
    return dest


def npm_corpus() -> Path | None:
    folder = CACHE / "bench-npm"
    modules = folder / "node_modules"
    if (folder / ".complete").exists():
        return modules
    if shutil.which("npm") is None:
        print("npm not found: skipping the large corpus (apt-get install -y npm)")
        return None
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "agentls-bench-corpus", "private": True, "dependencies": NPM_PACKAGES}
    (folder / "package.json").write_text(json.dumps(manifest, indent=1))
    print("installing the npm corpus (once)...", flush=True)
    proc = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        cwd=folder,
        check=False,
    )
    if proc.returncode != 0:
        print("npm install failed: skipping the large corpus")
        return None
    (folder / ".complete").write_text("")
    return modules


def interleaved(fns: list[Callable[[], object]], runs: int) -> list[float]:
    """Median ms of each function, runs alternated so that load changes on a shared
    machine hit every contender alike (ratios are what this benchmark reports)."""
    for fn in fns:
        fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, samples, strict=True):
            start = time.perf_counter()
            fn()
            out.append((time.perf_counter() - start) * 1000)
    return [statistics.median(out) for out in samples]


def cat_files(root: Path, paths: list[str]) -> None:
    data = b"\0".join(os.fsencode(p) for p in paths)
    subprocess.run(
        ["xargs", "-0", "cat"], input=data, cwd=root, stdout=subprocess.DEVNULL, check=True
    )


def rg(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["rg", "-uu", "--no-messages", *args], capture_output=True, check=False)


def rg_first(lines: int, *args: str) -> None:
    """The first ``lines`` lines of rg's output, then rg is stopped (as ``| head`` does)."""
    with subprocess.Popen(
        ["rg", "-uu", "--no-messages", *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as proc:
        assert proc.stdout is not None
        for _ in range(lines):
            if not proc.stdout.readline():
                break
        proc.kill()


def rg_count(out: bytes) -> int:
    return sum(int(line.rsplit(b":", 1)[1]) for line in out.splitlines() if line)


def vm_hwm_mb() -> float:
    """Peak RSS of this process. Not ru_maxrss: that one survives exec from the parent."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb(root: Path, hold_text: bool) -> float:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from agentls.indexer import IndexSettings, RepoIndexer;"
        "import bench.index_search as b, dataclasses;"
        "s = dataclasses.replace(b.SETTINGS, hold_text=sys.argv[3] == '1');"
        "i = RepoIndexer(sys.argv[2], s).build();"
        "print(b.vm_hwm_mb())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO), str(root), "1" if hold_text else "0"],
        capture_output=True,
        check=True,
        text=True,
    )
    return float(out.stdout.strip())


async def update_latency(root: Path, writes: int) -> tuple[float, float]:
    indexer = RepoIndexer(root, SETTINGS)
    index = await indexer.abuild()
    watcher = IndexWatcher(indexer, index)
    watcher.start()
    await watcher.wait_ready(60)
    probe = root / "__agentls_bench_probe.py"
    samples = []
    applied = asyncio.Event()
    watcher.subscribe(lambda _batch: applied.set())  # called right after a batch is applied
    try:
        for i in range(writes):
            applied.clear()
            start = time.perf_counter()
            probe.write_text(f"value = {i}\n" * (i % 7 + 1))
            await asyncio.wait_for(applied.wait(), 30)
            samples.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.02)
    finally:
        probe.unlink(missing_ok=True)
        await watcher.stop()
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9) - 1]


def fmt(value: float | None, unit: str = "ms") -> str:
    if value is None:
        return "—"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.1f} {unit}"


def ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def bench_corpus(name: str, root: Path, runs: int, writes: int, have_rg: bool) -> list[str]:
    rows: list[str] = []
    indexer = RepoIndexer(root, SETTINGS)
    index = indexer.build()
    paths = index.paths() + sorted(index.other_paths)
    size_mb = sum(f.size for f in index.files) / 1e6
    rows.append(
        f"| {name} | files indexed | {index.total_files:,} text + {len(index.other_paths)} "
        f"binary, {size_mb:.0f} MB | | |"
    )
    no_text = IndexSettings(**{**SETTINGS.__dict__, "hold_text": False})
    contenders: list[Callable[[], object]] = [
        lambda: cat_files(root, paths),
        lambda: RepoIndexer(root, SETTINGS).build(),
        lambda: RepoIndexer(root, no_text).build(),
    ]
    if have_rg:
        contenders += [lambda: rg("--files", str(root)), lambda: rg("-c", "", str(root))]
    medians = interleaved(contenders, runs)
    cat, build_text, build_plain = medians[:3]
    rows.append(f"| {name} | read limit: `cat` of the same files | {fmt(cat)} | 1.00× | |")
    rows.append(
        f"| {name} | index build (text held) | {fmt(build_text)} | {ratio(build_text, cat)} "
        f"| ≤ 1.3× cat: {'yes' if build_text <= 1.3 * cat else 'NO'} |"
    )
    rows.append(
        f"| {name} | index build (no text) | {fmt(build_plain)} | {ratio(build_plain, cat)} | |"
    )
    if have_rg:
        files, lines = medians[3:]
        rows.append(f"| {name} | `rg --files` | {fmt(files)} | {ratio(files, cat)} | |")
        rows.append(
            f"| {name} | `rg -c ''` (list + line count) | {fmt(lines)} | {ratio(lines, cat)} "
            f"| build vs rg: {ratio(build_text, lines)} |"
        )

    median, p90 = asyncio.run(update_latency(root, writes))
    rows.append(
        f"| {name} | write → index updated ({writes} writes) | median {fmt(median)}, "
        f"p90 {fmt(p90)} | | ≤ 30 ms: {'yes' if median <= 30 else 'NO'} |"
    )

    loop = asyncio.new_event_loop()  # one loop for all our searches, as in the server
    # As the server does once the index is built (server/index_service.py): the index's
    # long-lived objects out of the cyclic collector's passes during a search.
    gc.freeze()
    for label, pattern, literal, case_sensitive in PATTERNS:
        tool = "grep" if literal else "search_code"
        counts: list[int] = []

        def ours(
            limit: int,
            p: str = pattern,
            lit: bool = literal,
            cs: bool = case_sensitive,
            seen: list[int] = counts,
        ) -> None:
            query = compile_query(p, literal=lit, case_sensitive=cs, max_results=limit)
            result = loop.run_until_complete(
                search_files(
                    query, rel="", file_glob="*", recursive=True, indexer=indexer, index=index
                )
            )
            seen.append(result.matches)

        flags = ["-F"] if literal else []
        shown = pattern.replace("|", "\\|")  # a `|` would end the table cell
        # Every matching line; the first 100 (the tools' default); the first 1,000 (the
        # most a tool call can ask for).
        contenders = [lambda: ours(10**9), lambda: ours(100), lambda: ours(1000)]
        if have_rg:
            # Every matching line with its number, as we return them; and the first N
            # in path order, as the tools return them (`rg --sort path | head -N`:
            # sorting makes rg single-threaded, which is what path order costs it).
            contenders.append(lambda: rg("-n", *flags, "--", pattern, str(root)))  # noqa: B023
            rg_args = ["-n", "--sort", "path", *flags, "--", pattern, str(root)]
            contenders.append(lambda a=rg_args: rg_first(100, *a))
            contenders.append(lambda a=rg_args: rg_first(1000, *a))
        medians = interleaved(contenders, runs)
        every, first, first_k = medians[:3]
        cell = (
            f"{fmt(every)} ({counts[0]:,} lines); first 100: {fmt(first)}; "
            f"first 1,000: {fmt(first_k)}"
        )
        if have_rg:
            theirs, theirs_first, theirs_k = medians[3:6]
            rg_hits = rg_count(rg("-c", *flags, "--", pattern, str(root)).stdout)
            rows.append(
                f"| {name} | {tool} {label} `{shown}` | {cell} | {ratio(every, theirs)}; "
                f"first 100: {ratio(first, theirs_first)}; first 1,000: "
                f"{ratio(first_k, theirs_k)} | rg -n {fmt(theirs)} ({rg_hits:,} lines); "
                f"`--sort path \\| head`: -100 {fmt(theirs_first)}, -1000 {fmt(theirs_k)} |"
            )
        else:
            rows.append(f"| {name} | {tool} {label} `{shown}` | {cell} | | |")
    loop.close()

    base = float(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]); import indexer;"
                "import bench.index_search as b; print(b.vm_hwm_mb())",
                str(REPO),
            ],
            capture_output=True,
            check=True,
            text=True,
        ).stdout
    )
    with_text = peak_rss_mb(root, True)
    without = peak_rss_mb(root, False)
    rows.append(
        f"| {name} | peak RSS: text held / no text / bare interpreter | "
        f"{with_text:.0f} / {without:.0f} / {base:.0f} MB | "
        f"text costs {(with_text - without) / max(size_mb, 1e-9):.2f}× its size | |"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stdlib only, few iterations")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per measurement")
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 5)
    writes = 20 if args.quick else 100
    have_rg = shutil.which("rg") is not None
    if not have_rg:
        print("ripgrep not found: rg columns skipped (apt-get install -y ripgrep)")
    corpora = [("stdlib", stdlib_corpus())]
    if not args.quick:
        npm = npm_corpus()
        if npm is not None:
            corpora.append(("npm", npm))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {runs} runs (median)\n")
    print("| corpus | measurement | value | ratio | goal / baseline |")
    print("|---|---|---|---|---|")
    for name, root in corpora:
        for row in bench_corpus(name, root, runs, writes, have_rg):
            print(row, flush=True)


if __name__ == "__main__":
    main()
