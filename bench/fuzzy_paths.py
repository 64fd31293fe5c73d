"""Benchmark: the pickers' fuzzy match over many paths (`indexer/fuzzy.py`).

The goal: 50,000 paths answer well under a second, so a picker follows typing. The baseline,
measured in the same run, is the least any match must do: one pass of ``str.find`` of the
query over every lower-cased path.

    .venv/bin/python bench/fuzzy_paths.py
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from agentls.indexer.fuzzy import best, file_name_start  # noqa: E402

PATHS = [f"pkg{n // 500}/module_{n}/file_{n}.py" for n in range(50_000)]
QUERIES = ("file_4999", "mod49", "pkg9fl", "zzz")
ROUNDS = 5


def median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def scan(query: str) -> list[str]:
    q = query.lower()
    return [p for p in PATHS if p.lower().find(q) >= 0][:20]


def main() -> None:
    print(f"{len(PATHS)} paths, median of {ROUNDS} rounds")
    print("| query | fuzzy best 20 (ms) | plain find scan (ms) | ratio | goal < 1000 ms |")
    print("| --- | ---: | ---: | ---: | --- |")
    for query in QUERIES:
        fuzzy = median_ms(
            lambda q=query: best(q, PATHS, lambda p: p, 20, tail_from=file_name_start)
        )
        plain = median_ms(lambda q=query: scan(q))
        met = "met" if fuzzy < 1000 else "MISSED"
        print(f"| {query} | {fuzzy:.1f} | {plain:.1f} | {fuzzy / plain:.1f}x | {met} |")


if __name__ == "__main__":
    main()
