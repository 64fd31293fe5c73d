"""The watcher keeps the index equal to a fresh build and tells subscribers what changed."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from idx_helpers import write_file

from agentls.indexer import ChangeBatch, IndexSettings, IndexWatcher, RepoIndex, RepoIndexer

WAIT = 30.0  # generous: a loaded 2-core CI box may be slow, but never this slow


class Live:
    def __init__(self, root: Path, watcher: IndexWatcher) -> None:
        self.root = root
        self.watcher = watcher
        self.index: RepoIndex = watcher.index
        self.batches: list[ChangeBatch] = []
        watcher.subscribe(self.batches.append)

    async def settle(self) -> None:
        assert await self.watcher.settle(WAIT)

    def fresh(self) -> RepoIndex:
        return RepoIndexer(self.root, self.watcher.indexer.settings).build()

    def assert_fresh(self) -> None:
        fresh = self.fresh()
        assert self.index.snapshot() == fresh.snapshot()
        assert self.index.total_lines == fresh.total_lines
        assert self.index.languages == fresh.languages
        assert self.index.text is not None and fresh.text is not None
        for path in fresh.paths():
            assert self.index.text.get(path) == fresh.text.get(path), path

    def changes(self) -> tuple[set[str], set[str], set[str]]:
        added: set[str] = set()
        modified: set[str] = set()
        deleted: set[str] = set()
        for batch in self.batches:
            added |= set(batch.added)
            modified |= set(batch.modified)
            deleted |= set(batch.deleted)
        self.batches.clear()
        return added, modified, deleted


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("a = 1\n")
    (root / ".gitignore").write_text("*.log\n")
    indexer = RepoIndexer(root, IndexSettings(max_file_size=50_000))
    watcher = IndexWatcher(indexer, indexer.build())
    watcher.start()
    assert await watcher.wait_ready(WAIT)
    try:
        yield Live(root, watcher)
    finally:
        await watcher.stop()


async def test_create_modify_delete(live: Live) -> None:
    root = live.root
    (root / "src" / "b.py").write_text("b = 2\n")
    (root / "notes.log").write_text("ignored\n")
    await live.settle()
    assert live.index.get("src/b.py") is not None
    assert "notes.log" not in live.index
    assert live.changes() == ({"src/b.py"}, set(), set())

    (root / "src" / "b.py").write_text("b = 2\nc = 3\n")
    await live.settle()
    info = live.index.get("src/b.py")
    assert info is not None and info.lines == 2
    assert live.index.text is not None and live.index.text.get("src/b.py") == b"b = 2\nc = 3\n"
    assert live.changes()[1] == {"src/b.py"}

    (root / "src" / "b.py").unlink()
    await live.settle()
    assert "src/b.py" not in live.index
    assert live.changes()[2] == {"src/b.py"}
    live.assert_fresh()


async def test_rename_file_and_directory(live: Live) -> None:
    root = live.root
    (root / "src" / "a.py").rename(root / "src" / "renamed.py")
    await live.settle()
    assert live.index.paths() == [".gitignore", "src/renamed.py"]
    added, _, deleted = live.changes()
    assert added == {"src/renamed.py"} and deleted == {"src/a.py"}

    (root / "src").rename(root / "lib")
    await live.settle()
    assert live.index.paths() == [".gitignore", "lib/renamed.py"]
    live.assert_fresh()

    outside = root.parent / "elsewhere"
    (root / "lib").rename(outside)  # moved out of the tree: one event for the directory
    await live.settle()
    assert live.index.paths() == [".gitignore"]
    outside.rename(root / "back")  # moved in: its files were never announced one by one
    await live.settle()
    assert live.index.paths() == [".gitignore", "back/renamed.py"]
    live.assert_fresh()


async def test_binary_growth_and_gitignore_change(live: Live) -> None:
    root = live.root
    (root / "data.bin").write_bytes(b"\x00\x01")
    (root / "keep.log").write_text("log\n")
    await live.settle()
    assert live.index.other_paths == {"data.bin": "binary"}
    assert live.changes()[0] == {"data.bin"}

    (root / "src" / "a.py").write_text("x" * 60_000)  # now over max_file_size
    await live.settle()
    assert "src/a.py" not in live.index and live.index.other_paths["src/a.py"] == "too_large"

    (root / ".gitignore").write_text("*.bin\n")  # re-evaluates the whole tree
    await live.settle()
    assert "keep.log" in live.index and "data.bin" not in live.index.other_paths
    added, _, deleted = live.changes()
    assert "keep.log" in added and "data.bin" in deleted
    live.assert_fresh()


async def test_burst_of_5000_files_ends_consistent(live: Live) -> None:
    root = live.root

    def burst() -> None:
        for d in range(50):
            folder = root / "gen" / f"d{d:02d}"
            folder.mkdir(parents=True)
            for i in range(100):
                (folder / f"f{i:03d}.py").write_text(f"value = {d * 100 + i}\n")
        for i in range(0, 100, 3):
            (root / "gen" / "d07" / f"f{i:03d}.py").unlink()
        shutil.rmtree(root / "gen" / "d08")

    await asyncio.to_thread(burst)
    await live.settle()
    assert live.index.total_files == 2 + 5000 - 34 - 100
    live.assert_fresh()
    present = {".gitignore", "src/a.py"}
    for batch in live.batches:  # replaying the batches in order gives the final tree
        present |= set(batch.added)
        present -= set(batch.deleted)
        assert present.issuperset(batch.modified)
    assert present == set(live.index.paths())


async def test_subscribers_sync_async_and_failing(live: Live) -> None:
    seen_async: list[ChangeBatch] = []
    seen_sync: list[ChangeBatch] = []

    async def on_async(batch: ChangeBatch) -> None:
        await asyncio.sleep(0)
        seen_async.append(batch)

    def broken(_batch: ChangeBatch) -> None:
        raise RuntimeError("subscriber bug")

    live.watcher.subscribe(broken)
    live.watcher.subscribe(on_async)
    unsubscribe = live.watcher.subscribe(seen_sync.append)
    (live.root / "new.py").write_text("n = 1\n")
    await live.settle()
    assert [b.added for b in seen_async] == [("new.py",)]
    assert seen_sync == seen_async
    assert seen_async[0].generation == live.index.generation
    unsubscribe()
    (live.root / "new.py").unlink()
    await live.settle()
    assert len(seen_sync) == 1 and seen_async[-1].deleted == ("new.py",)


async def test_non_utf8_names_do_not_break_the_watcher(live: Live) -> None:
    write_file(live.root, b"caf\xe9.py")
    (live.root / "after.py").write_text("y = 2\n")
    await live.settle()
    assert "after.py" in live.index
    assert live.watcher.running
    assert len(live.index.paths()) == 4  # the odd name too, via the re-sync after a restart


async def test_stop_event_ends_run(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    indexer = RepoIndexer(tmp_path)
    watcher = IndexWatcher(indexer, indexer.build())
    stop = asyncio.Event()
    task = asyncio.create_task(watcher.run(stop))
    assert await watcher.wait_ready(WAIT)
    stop.set()
    await asyncio.wait_for(task, WAIT)
    assert not watcher.running
    assert not await watcher.settle(0.1)


async def test_cancel_ends_run(tmp_path: Path) -> None:
    indexer = RepoIndexer(tmp_path)
    watcher = IndexWatcher(indexer, indexer.build())
    task = watcher.start()
    assert await watcher.wait_ready(WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not watcher.running
