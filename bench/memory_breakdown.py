"""Where a window's megabytes go: the server's index and the symbol process, part by part.

    PYTHONPATH=$PWD/src .venv/bin/python bench/memory_breakdown.py [--corpus npm] [--trace]

For each workspace (the corpora of ``server_memory.py``), two fresh interpreters:

- **server**: ``VmRSS`` bare, after the server's modules (``agentls.server.app`` and the
  modules a run imports, as ``server/warm_up.py`` loads them), after the index build (the
  server's own settings, text held), after ``malloc_trim(0)``; the sizes of the index's
  structures (``sys.getsizeof``); with ``--trace``, the largest allocations of the build
  by file and line (``tracemalloc``).
- **symbol process**: the same for ``agentls.indexer.symbols_process`` fed the file list
  the server sends it, once from its disk cache (as a restarted child) and once parsing
  (a first start); then one map and ``malloc_trim``.

Each part runs ``gc.collect()`` before it is measured. ``malloc`` lines are glibc's
``malloc_info``: every arena (the main one and those of threads) with the bytes it holds
from the system and how many of them are free.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

COMMON = r"""
import ctypes, gc, json, os, re, sys, tempfile, time, tracemalloc
from sys import getsizeof as size

MB = 2**20

def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

def heap():
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    fd, path = tempfile.mkstemp()
    os.close(fd)
    fp = libc.fopen(path.encode(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(fp))
    libc.fclose(ctypes.c_void_p(fp))
    with open(path) as fh:
        xml = fh.read()
    os.unlink(path)
    tail = xml[xml.rfind("</heap>"):]
    sizes = re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"', tail)
    free = sum(int(x) for x in sizes) / MB
    system = int(re.search(r'<system type="current" size="(\d+)"', tail).group(1)) / MB
    arenas = xml.count("<heap nr=")
    return f"malloc: {arenas} arenas, {system:.1f} MB from the system, {free:.1f} MB of it free"

def trim():
    ctypes.CDLL(None).malloc_trim(0)

def say(what, **more):
    gc.collect()
    print(json.dumps({"what": what, "rss": round(rss(), 1), **more}), flush=True)

def top(snapshot, count=8):
    out = []
    for stat in snapshot.statistics("lineno")[:count]:
        frame = stat.traceback[0]
        where = frame.filename.rsplit("/agentls/", 1)[-1].rsplit("site-packages/", 1)[-1]
        out.append(f"{stat.size / MB:.1f} MB in {stat.count:,} blocks at {where}:{frame.lineno}")
    return out
"""

SERVER = (
    COMMON
    + r"""
root, trace = sys.argv[1], sys.argv[2] == "1"
say("bare interpreter")
import agentls.server.app
from agentls.server.warm_up import import_run_modules
import_run_modules()
from agentls.agent.config.models import IndexerConfig
from agentls.agent.tools.search import index_settings
from agentls.indexer.builder import RepoIndexer
import agentls.indexer.query, agentls.indexer.watcher, agentls.indexer.symbols_client
say("the server's modules", modules=len(sys.modules))
if trace:
    tracemalloc.start()
index = RepoIndexer(root, index_settings(IndexerConfig())).build()
lines = top(tracemalloc.take_snapshot()) if trace else []
tracemalloc.stop()
files = index._files.values()
held = index.text.total_bytes
say(
    "index built",
    files=index.total_files,
    held_mb=round(held / MB, 1),
    text_objects_mb=round(sum(size(b) for b in index.text._data.values()) / MB, 1),
    fileinfo_mb=round(sum(size(f) for f in files) / MB, 1),
    path_mb=round(sum(size(f.path) for f in files) / MB, 1),
    numbers_mb=round(sum(size(f.size) + size(f.mtime_ns) + size(f.lines) for f in files) / MB, 1),
    distinct_ext=len({id(f.ext) for f in files}),
    dicts_mb=round((size(index._files) + size(index.text._data)) / MB, 1),
    heap=heap(),
    top=lines,
)
trim()
say("after malloc_trim", heap=heap())
index.sources()
say("after a search's snapshot of the sources")
"""
)

SYMBOLS = (
    COMMON
    + r"""
message, cache = sys.argv[1], sys.argv[2]
say("bare interpreter")
from agentls.child_wire import decode
from agentls.indexer.symbols_process import SymbolServer
say("the symbol process's modules", modules=len(sys.modules))
with open(message, "rb") as fh:
    request = decode(fh.read())
request["cache"] = cache
server = SymbolServer()
start = time.perf_counter()
server.handle(request)
del request
server.symbols.wait_filled(3600)
seconds = time.perf_counter() - start
time.sleep(0.5)  # the fill's thread trims once it has announced the fill
symbols = server.symbols
kept = symbols._files.values()
say(
    "filled",
    seconds=round(seconds, 1),
    files=len(symbols._files),
    text_mb=round(sum(size(s._text) for s in kept) / MB, 1),
    numbers_mb=round(sum(size(s._numbers) for s in kept) / MB, 1),
    objects_mb=round(sum(size(s) for s in kept) / MB, 1),
    stamps_mb=round(sum(size(t) for t in symbols._stamps.values()) / MB, 1),
    dicts_mb=round(
        (size(symbols._files) + size(symbols._stamps) + size(server.index._files)) / MB, 1
    ),
    fileinfo_mb=round(
        sum(
            size(f) + size(f.path) + size(f.size) + size(f.mtime_ns) + size(f.lines)
            for f in server.index._files.values()
        ) / MB,
        1,
    ),
    heap=heap(),
)
start = time.perf_counter()
server.handle({"op": "map", "prompt": "why does the parser fail?", "max_tokens": 1024})
say("after a map", seconds=round(time.perf_counter() - start, 1))
trim()
say("after malloc_trim", heap=heap())
"""
)


def run(code: str, *args: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-P", "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def show(title: str, steps: list[dict[str, object]]) -> None:
    print(f"\n### {title}\n")
    last = None
    for step in steps:
        rss = float(step.pop("rss"))  # type: ignore[arg-type]
        what = step.pop("what")
        top = step.pop("top", [])
        heap = step.pop("heap", None)
        delta = "" if last is None else f" ({rss - last:+.1f})"
        details = ", ".join(f"{k} {v}" for k, v in step.items())
        print(f"- {what}: **{rss:.1f} MB**{delta}" + (f"; {details}" if details else ""))
        if heap:
            print(f"  - {heap}")
        for line in top:  # type: ignore[attr-defined]
            print(f"  - {line}")
        last = rss


def main() -> None:
    from index_search import npm_corpus, stdlib_corpus

    from agentls.agent.config.models import IndexerConfig
    from agentls.agent.tools.search import index_settings
    from agentls.indexer.builder import RepoIndexer
    from agentls.indexer.symbols_client import _files_message

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", nargs="*", choices=("stdlib", "npm"), default=["npm"])
    parser.add_argument("--trace", action="store_true", help="tracemalloc of the build")
    args = parser.parse_args()
    corpora = {"stdlib": stdlib_corpus, "npm": npm_corpus}
    for name in args.corpus:
        root = corpora[name]()
        if root is None:
            continue
        root = root.resolve()
        show(f"{name}: the server", run(SERVER, str(root), "1" if args.trace else "0"))
        settings = index_settings(IndexerConfig())
        index = RepoIndexer(root, settings).build()
        header = {"op": "files", "reset": True, "root": str(index.root), "cache": None}
        with tempfile.TemporaryDirectory() as tmp:
            message = Path(tmp) / "files.json"
            message.write_bytes(_files_message(header, index.files))
            del index
            cache = Path(tmp) / "symbols.json"
            show(
                f"{name}: the symbol process, first start (parsing)",
                run(SYMBOLS, str(message), str(cache)),
            )
            show(
                f"{name}: the symbol process, from its cache",
                run(SYMBOLS, str(message), str(cache)),
            )


if __name__ == "__main__":
    main()
