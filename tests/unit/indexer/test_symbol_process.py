"""The symbols of an index kept by a child process: the same answers as in this process,
following the index's changes, surviving the child's death, and ended when idle."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.builder import apply_scans
from agentls.indexer.index import RepoIndex
from agentls.indexer.repomap import MapFocus
from agentls.indexer.symbol_source import LocalSymbols, SymbolsUnavailable
from agentls.indexer.symbols_client import SymbolProcess

WAIT = 30.0


def _tree(root: Path) -> tuple[RepoIndexer, RepoIndex]:
    (root / "shop").mkdir()
    (root / "shop" / "cart.py").write_text(
        "class Cart:\n    def total(self):\n        return price(self)\n"
    )
    (root / "shop" / "price.py").write_text("def price(cart):\n    return 0\n")
    (root / "web.ts").write_text("export function render(cart: Cart) { return price(cart) }\n")
    (root / "notes.txt").write_text("price is not code here\n")
    indexer = RepoIndexer(root, IndexSettings())
    return indexer, indexer.build()


@dataclass
class Kept:
    """A tree's symbols in a child process, filled, and what changes the tree."""

    process: SymbolProcess
    indexer: RepoIndexer

    def write(self, rel: str, text: str | None) -> None:
        """What the watcher does for one file: write (or delete) it and apply its scan."""
        path, index = self.indexer.root / rel, self.process.index
        if text is None:
            path.unlink()
            index.remove(rel)
            return
        path.write_text(text)
        apply_scans(index, [self.indexer.scan(rel)])

    async def defined(self, name: str) -> list[tuple[str, int]]:
        return [(h.path, h.line) for h in await self.process.find_definitions(name)]


@pytest.fixture
async def kept(tmp_path: Path) -> AsyncIterator[Kept]:
    indexer, index = _tree(tmp_path)
    process = SymbolProcess(index, tmp_path / ".agentls" / "symbols.json")
    assert await process.wait_filled(WAIT)
    yield Kept(process, indexer)
    await process.close()


async def test_answers_as_the_symbols_of_this_process_do(tmp_path: Path) -> None:
    _, index = _tree(tmp_path)
    here, there = LocalSymbols(index), SymbolProcess(index)
    try:
        assert await there.wait_filled(WAIT) and await here.wait_filled(WAIT)
        for name in ("price", "Cart", "render", "nothing_like_it"):
            assert await there.find_definitions(name) == await here.find_definitions(name)
            assert await there.find_references(name) == await here.find_references(name)
        for query in ("pri", "crt", "", "zzz"):
            found = await there.search_definitions(query, 5)
            assert found == await here.search_definitions(query, 5)
        assert (await there.search_definitions("pri", 5))[0].name == "price"
        assert (await there.search_definitions("crt", 5))[0].name == "Cart"
        assert await there.search_definitions("zzz", 5) == []
        assert await there.find_definitions("total", "method") != []
        assert await there.find_definitions("total", "class") == []
        focus = MapFocus(prompt="why is the price of a Cart 0?", open_paths=("web.ts",))
        assert await there.repo_map(focus, 200) == await here.repo_map(focus, 200)
        assert "shop/price.py:" in await there.repo_map(focus, 200)
    finally:
        await there.close()


async def test_follows_every_change_of_the_index(kept: Kept) -> None:
    process = kept.process
    assert process.cache_path is not None and process.cache_path.is_file()  # the child wrote it
    assert await kept.defined("price") == [("shop/price.py", 1)]

    kept.write("shop/tax.py", "def vat(amount):\n    return price(amount)\n")
    assert await kept.defined("vat") == [("shop/tax.py", 1)]
    assert ("shop/tax.py", 2) in [(h.path, h.line) for h in await process.find_references("price")]

    kept.write("shop/tax.py", "\n\ndef vat(amount, rate):\n    return 0\n")
    [hit] = await process.find_definitions("vat")
    assert (hit.line, hit.text) == (3, "def vat(amount, rate):")
    assert "shop/tax.py" not in [h.path for h in await process.find_references("price")]

    kept.write("shop/price.py", None)
    assert await kept.defined("price") == []


async def test_a_flood_of_changes_is_sent_as_the_whole_index(kept: Kept) -> None:
    # More changes than the index's change log keeps: the child gets every file again.
    for n in range(5000):
        kept.write("shop/churn.py", f"def churn_{n}():\n    pass\n")
    kept.write("shop/price.py", None)
    assert await kept.process.wait_filled(WAIT)
    assert await kept.defined("churn_4999") == [("shop/churn.py", 1)]
    assert await kept.defined("churn_4998") == []
    assert await kept.defined("price") == []
    assert await kept.defined("Cart") == [("shop/cart.py", 1)]


async def test_a_dead_child_is_started_again_and_told_every_file(kept: Kept) -> None:
    first = kept.process.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    kept.write("shop/late.py", "class Ledger:\n    pass\n")
    # The question in flight when it died may fail; the next ones are answered by a new
    # child that knows the file written meanwhile.
    found: list[tuple[str, int]] | None = None
    for _ in range(3):
        try:
            assert await kept.process.wait_filled(WAIT)
            found = await kept.defined("Ledger")
            break
        except SymbolsUnavailable:
            continue
    assert found == [("shop/late.py", 1)]
    assert kept.process.pid not in (None, first)


async def test_a_question_asked_as_the_child_dies_goes_to_a_new_child(kept: Kept) -> None:
    first = kept.process.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    _wait_gone(first)  # its pipe is closed, but the event loop has not heard of it yet
    kept.write("shop/late.py", "class Ledger:\n    pass\n")
    assert await kept.process.wait_filled(WAIT)  # no retry: this question must not fail
    assert kept.process.pid not in (None, first)
    assert await kept.defined("Ledger") == [("shop/late.py", 1)]
    assert await kept.defined("Cart") == [("shop/cart.py", 1)]


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_an_idle_child_ends_once_filled_and_a_new_one_reads_its_cache_back(
    tmp_path: Path,
) -> None:
    indexer, index = _tree(tmp_path)
    cache = tmp_path / ".agentls" / "symbols.json"
    process = SymbolProcess(index, cache, idle_seconds=lambda: 0.2)
    kept = Kept(process, indexer)
    try:
        process.changed()  # what the server does once the index is built: the fill starts
        # Filled (it writes its cache then), then stopped: never before its cache is written.
        await _until(lambda: cache.is_file() and not process.running, "the idle stop")

        # Changes while it is stopped do not start it; the next question does, and the
        # new child knows them (it reads the cache back and parses what changed).
        kept.write("shop/late.py", "class Ledger:\n    pass\n")
        kept.write("shop/price.py", "\n\ndef price(cart, rate):\n    return 0\n")
        process.changed()
        await asyncio.sleep(0.3)
        assert not process.running
        assert await process.wait_filled(WAIT)  # as the map and the tools ask first
        assert await kept.defined("Ledger") == [("shop/late.py", 1)]
        assert await kept.defined("price") == [("shop/price.py", 3)]
        assert await kept.defined("Cart") == [("shop/cart.py", 1)]

        # A run coming (agent/prepare) starts it ahead of the run's questions.
        await _until(lambda: not process.running, "the second idle stop")
        process.wake()
        await _until(lambda: process.running, "the child woken")
    finally:
        await process.close()


async def test_a_child_without_idle_seconds_stays(kept: Kept) -> None:
    first = kept.process.pid
    await asyncio.sleep(0.5)
    assert kept.process.running and kept.process.pid == first


def _wait_gone(pid: int) -> None:
    """Block (not await: the loop must not hear of it) until ``pid`` and all its threads
    have exited, so its end of the pipe is closed. ``WNOWAIT`` leaves it to be reaped by
    the loop's child watcher, which may also have been first."""
    with contextlib.suppress(ChildProcessError):
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


async def test_a_child_that_cannot_start_or_was_closed_says_so(tmp_path: Path) -> None:
    _, index = _tree(tmp_path)
    broken = SymbolProcess(index, command=["/nonexistent/python"])
    with pytest.raises(SymbolsUnavailable, match="could not start the symbol process"):
        await broken.find_definitions("price")
    closed = SymbolProcess(index)
    assert await closed.wait_filled(WAIT)
    await closed.close()
    with pytest.raises(SymbolsUnavailable, match="closed"):
        await closed.find_definitions("price")


async def test_a_file_name_that_is_not_utf8_survives_the_pipe(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text("def brew():\n    pass\n")
    index = RepoIndexer(tmp_path, IndexSettings()).build()
    process = SymbolProcess(index)
    try:
        assert await process.wait_filled(WAIT)
        assert [h.path for h in await process.find_definitions("brew")] == [name]
    finally:
        await process.close()


def test_a_loop_that_ends_with_the_child_running_does_not_wait_for_it(tmp_path: Path) -> None:
    """The server's loop ends (exit without shutdown) while the child still runs: it
    exits once its stdin closes, which is after the loop; the loop must not wait for it."""
    _tree(tmp_path)
    script = (
        "import asyncio, sys\n"
        "from agentls.indexer import IndexSettings, RepoIndexer\n"
        "from agentls.indexer.symbols_client import SymbolProcess\n"
        "async def main():\n"
        "    index = RepoIndexer(sys.argv[1], IndexSettings()).build()\n"
        "    symbols = SymbolProcess(index)\n"
        "    print(await symbols.wait_filled(30), flush=True)\n"
        "asyncio.run(main())\n"
        "print('ended', flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.split() == ["True", "ended"], done.stderr


def test_the_child_imports_no_event_loop_watcher_or_ignore_rules() -> None:
    """It runs in every editor window: asyncio, watchfiles and pathspec (~12 MB) are the
    server's to hold, not the child's."""
    script = (
        "import sys\n"
        "import agentls.indexer.symbols_process\n"
        "print(sorted({'asyncio', 'watchfiles', 'pathspec'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "[]", done.stderr
