"""Benchmark: symbol extraction and the repo map against the index build alone.

Same corpora as bench/index_search.py (stdlib copy; the ~50k-file npm install when
npm is available). For each corpus, measured in the same run:
  * index build (the baseline), the symbol fill with no cache (tree-sitter over every
    supported file), the fill from the disk cache, and the map render for a prompt;
  * peak RSS of a process that builds the index alone vs. index + symbols;
  * update latency: a file written, applied by the watcher, then its symbols caught
    up (``refresh``) — median and worst over the writes.

    .venv/bin/python bench/repo_map.py            # both corpora
    .venv/bin/python bench/repo_map.py --quick    # stdlib only
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agentls.indexer import IndexWatcher, RepoIndexer  # noqa: E402
from agentls.indexer.repomap import MapFocus, SymbolIndex, render_map  # noqa: E402
from bench.index_search import SETTINGS, fmt, npm_corpus, ratio, stdlib_corpus  # noqa: E402

PROMPT = "the parser raises ValueError in parse_args when the config file is missing"


def peak_rss_mb(root: Path, with_symbols: bool) -> float:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from agentls.indexer import RepoIndexer;"
        "from agentls.indexer.repomap import SymbolIndex;"
        "import bench.index_search as b;"
        "i = RepoIndexer(sys.argv[2], b.SETTINGS).build();"
        "s = SymbolIndex(i) if sys.argv[3] == '1' else None;"
        "s and (s.start(), s.wait_filled());"
        "print(b.vm_hwm_mb())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO), str(root), "1" if with_symbols else "0"],
        capture_output=True,
        check=True,
        text=True,
    )
    return float(out.stdout.strip())


def timed(fn: object) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000, value


async def update_latency(root: Path, writes: int) -> tuple[float, float, float]:
    """Median and worst of write -> symbols updated (the watcher's apply included), and
    the median of the symbols' own catch-up alone."""
    indexer = RepoIndexer(root, SETTINGS)
    index = await indexer.abuild()
    symbols = SymbolIndex(index)
    symbols.start()
    symbols.wait_filled()
    watcher = IndexWatcher(indexer, index)
    target = root / "agentls_bench_symbols.py"
    times: list[float] = []
    own: list[float] = []
    try:
        for i in range(writes):
            target.write_text(f"def bench_function_{i}(value):\n    return value\n" * 50)
            start = time.perf_counter()
            await watcher.apply_paths([target.name])
            applied = time.perf_counter()
            symbols.refresh()
            done = time.perf_counter()
            times.append((done - start) * 1000)
            own.append((done - applied) * 1000)
            assert symbols.find_definitions(f"bench_function_{i}")
    finally:
        target.unlink(missing_ok=True)
    return statistics.median(times), max(times), statistics.median(own)


def bench_corpus(name: str, root: Path, writes: int) -> list[str]:
    rows: list[str] = []
    build_ms, index = timed(lambda: RepoIndexer(root, SETTINGS).build())
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "symbols.json"
        cold = SymbolIndex(index, cache)  # type: ignore[arg-type]
        fill_ms, _ = timed(lambda: (cold.start(), cold.wait_filled()))
        warm = SymbolIndex(index, cache)  # type: ignore[arg-type]
        cached_ms, _ = timed(lambda: (warm.start(), warm.wait_filled()))
    files = cold.files()
    defs = sum(len(s.definitions) for s in files.values())
    render_ms, text = timed(lambda: render_map(files, MapFocus(prompt=PROMPT), 1500))
    rows.append(f"| {name} | index build ({len(index.files)} files) | {fmt(build_ms)} | 1.00× |")  # type: ignore[attr-defined]
    rows.append(
        f"| {name} | symbol fill, no cache ({len(files)} files, {defs} defs) "
        f"| {fmt(fill_ms)} | {ratio(fill_ms, build_ms)} |"
    )
    rows.append(
        f"| {name} | symbol fill from cache | {fmt(cached_ms)} | {ratio(cached_ms, build_ms)} |"
    )
    rows.append(
        f"| {name} | map render (1500 tokens, {len(str(text))} chars) "
        f"| {fmt(render_ms)} | {ratio(render_ms, build_ms)} |"
    )
    base_mb = peak_rss_mb(root, False)
    sym_mb = peak_rss_mb(root, True)
    rows.append(f"| {name} | peak RSS, index alone | {base_mb:.0f} MB | 1.00× |")
    rows.append(
        f"| {name} | peak RSS, index + symbols | {sym_mb:.0f} MB | {sym_mb / base_mb:.2f}× |"
    )
    median, worst, own = asyncio.run(update_latency(root, writes))
    rows.append(
        f"| {name} | write -> symbols updated (median / worst of {writes}) "
        f"| {fmt(median)} / {fmt(worst)} | goal 50 ms |"
    )
    rows.append(
        f"| {name} | of which the symbols' own catch-up (median) | {fmt(own)} "
        f"| {own / median:.2f} of it |"
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="stdlib only")
    parser.add_argument("--writes", type=int, default=20, help="writes timed for the update")
    args = parser.parse_args()
    corpora = [("stdlib", stdlib_corpus())]
    if not args.quick:
        npm = npm_corpus()
        if npm is not None:
            corpora.append(("npm", npm))
    print("| corpus | measurement | value | ratio to index build |")
    print("|---|---|---|---|")
    for name, root in corpora:
        for row in bench_corpus(name, root, args.writes):
            print(row, flush=True)


if __name__ == "__main__":
    main()
