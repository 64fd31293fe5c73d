"""The live index's watcher tells what a command changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentls.indexer import IndexSettings, IndexWatcher, RepoIndexer
from agentls.server.index_service import WatcherChangesProbe


async def test_probe_reports_what_changed_between_snapshot_and_now(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("a\n")
    (tmp_path / "gone.txt").write_text("b\n")
    indexer = RepoIndexer(tmp_path, IndexSettings(use_git=False))
    index = await indexer.abuild()
    watcher = IndexWatcher(indexer, index)
    watcher.start()
    try:
        assert await watcher.wait_ready()
        probe = WatcherChangesProbe(watcher)
        snap = await probe.snapshot()

        def command() -> None:  # what a shell command would do
            (tmp_path / "made.txt").write_text("new\n")
            (tmp_path / "kept.txt").write_text("changed\n")
            (tmp_path / "gone.txt").unlink()

        await asyncio.to_thread(command)
        assert await probe.changed_since(snap) == ["gone.txt", "kept.txt", "made.txt"]
        # after changed_since the probe stops listening
        await asyncio.to_thread((tmp_path / "later.txt").write_text, "x\n")
        await watcher.settle()
        assert snap[0] == {"gone.txt", "kept.txt", "made.txt"}
    finally:
        await watcher.stop()
