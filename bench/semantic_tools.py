"""Semantic against textual code navigation: what ``navigate_code references`` answers with a
language server and without one, and how long it takes.

Two workspaces: tests/fixtures/workspaces/semantic (two classes with a ``save`` method, an
alias of a re-export; the right answer is known) and a copy of a standard-library package
(``email`` by default), where each method name several classes define is asked about at
its first definition. The semantic answers come from basedpyright, started by
``LanguageServers`` (scripts/ensure_language_servers.sh installs it), the textual ones from
the tree-sitter symbols (``TextualNavigator``, what the tool answers without a server).
Precision and recall are of the listed lines (path, line) other than the definition asked
about: against the known answer on the fixture, against basedpyright's on the package
(there is no other oracle there: its own row is 1.00 by definition). Latency: the first
question of a fresh server (its start and first analysis included), then warm questions,
p50 and p95.

    PYTHONPATH=src python bench/semantic_tools.py [--package email] [--symbols 12] [--cold 3]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from semantic_workspace import (  # noqa: E402
    STORE_SAVE,
    STORE_SAVE_USES,
    path_with_language_servers,
    semantic_workspace,
)

from agentls.agent.config.models import DiagnosticsConfig  # noqa: E402
from agentls.agent.indexing import local_symbols  # noqa: E402
from agentls.agent.navigation import CodeNavigator, Place  # noqa: E402
from agentls.agent.tools.textual_navigator import TextualNavigator  # noqa: E402
from agentls.indexer import IndexSettings, RepoIndexer  # noqa: E402
from agentls.langservers import LanguageServers  # noqa: E402

Lines = set[tuple[str, int]]
Question = tuple[str, int, int, str]  # path, line, column, name


def stats(values: list[float]) -> tuple[float, float]:
    """p50 and p95, in ms."""
    ordered = sorted(v * 1000 for v in values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def precision_recall(found: Lines, truth: Lines) -> tuple[float, float]:
    hit = len(found & truth)
    return (hit / len(found) if found else 1.0), (hit / len(truth) if truth else 1.0)


async def references(navigator: CodeNavigator, root: Path, question: Question) -> Lines:
    path, line, col, _ = question
    text = (root / path).read_text()
    answer = await navigator.ask("references", Place(path, line, col, text))
    # The uses: the server lists the definition asked about too, a search by name does not.
    return {(loc.path, loc.line) for loc in answer.locations} - {(path, line)}


def textual(root: Path) -> TextualNavigator:
    index = RepoIndexer(root, IndexSettings()).build()
    return TextualNavigator(local_symbols(index))


def shared_methods(root: Path, limit: int) -> list[Question]:
    """The first definition of each method name that several classes of ``root`` define."""
    seen: dict[str, list[Question]] = {}
    for file in sorted(root.rglob("*.py")):
        rel = file.relative_to(root).as_posix()
        tree = ast.parse(file.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    col = item.col_offset + len("def ") + 1
                    seen.setdefault(item.name, []).append((rel, item.lineno, col, item.name))
    shared = sorted(name for name, where in seen.items() if len(where) > 1)
    return [seen[name][0] for name in shared[:limit]]


async def first_calls(root: Path, question: Question, cold: int) -> list[float]:
    times = []
    for _ in range(cold):
        async with LanguageServers(DiagnosticsConfig(), root, trusted=True) as pool:
            started = time.monotonic()
            await references(pool.navigator, root, question)
            times.append(time.monotonic() - started)
    return times


async def compare(
    name: str, root: Path, questions: list[Question], truth: dict[Question, Lines] | None
) -> list[str]:
    rows = []
    words = textual(root)
    async with LanguageServers(DiagnosticsConfig(), root, trusted=True) as pool:
        semantic: dict[Question, Lines] = {}
        warm: list[float] = []
        for question in questions:  # the first answers warm the server
            semantic[question] = await references(pool.navigator, root, question)
        for question in questions:
            started = time.monotonic()
            await references(pool.navigator, root, question)
            warm.append(time.monotonic() - started)
    by_name: dict[Question, Lines] = {}
    textual_times: list[float] = []
    for question in questions:
        started = time.monotonic()
        by_name[question] = await references(words, root, question)
        textual_times.append(time.monotonic() - started)
    oracle = truth or semantic
    for label, answers, times in (
        ("basedpyright", semantic, warm),
        ("tree-sitter (by name)", by_name, textual_times),
    ):
        scores = [precision_recall(answers[q], oracle[q]) for q in questions]
        precision = statistics.mean(p for p, _ in scores)
        recall = statistics.mean(r for _, r in scores)
        listed = sum(len(answers[q]) for q in questions)
        p50, p95 = stats(times)
        rows.append(
            f"| {name} | {label} | {len(questions)} | {listed} | {precision:.2f} | "
            f"{recall:.2f} | {p50:.1f} | {p95:.1f} |"
        )
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--package", default="email")
    parser.add_argument("--symbols", type=int, default=12)
    parser.add_argument("--cold", type=int, default=3)
    args = parser.parse_args()
    os.environ["PATH"] = path_with_language_servers()
    scratch = Path(tempfile.mkdtemp(prefix="agentls-bench-semantic-"))
    try:
        fixture = semantic_workspace(scratch / "fixture")
        store_save: Question = (*STORE_SAVE, 9, "save")
        truth = {store_save: set(STORE_SAVE_USES)}
        package = scratch / "package" / args.package
        source = Path(__import__(args.package).__file__ or "").parent
        shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
        questions = shared_methods(package, args.symbols)
        print(
            "| workspace | answered by | questions | lines listed | precision | recall | "
            "warm p50 ms | warm p95 ms |"
        )
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in await compare("fixture (Store.save)", fixture, [store_save], truth):
            print(row)
        label = f"{args.package} package ({len(list(package.rglob('*.py')))} files)"
        for row in await compare(label, package, questions, None):
            print(row)
        print()
        print("| first question of a fresh server | n | p50 ms | p95 ms |")
        print("| --- | ---: | ---: | ---: |")
        for name, root, question in (
            ("fixture", fixture, store_save),
            (args.package, package, questions[0]),
        ):
            p50, p95 = stats(await first_calls(root, question, args.cold))
            print(f"| {name} | {args.cold} | {p50:.0f} | {p95:.0f} |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
