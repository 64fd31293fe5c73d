"""While the index is (re)built the server has no symbol process: a run is told the
symbols are not ready, and nothing is parsed in the server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.symbol_source import SymbolsUnavailable
from agentls.indexer.symbols_client import SymbolProcess
from agentls.server.index_service import IndexService


def _service() -> IndexService:
    def spawn(coro: Any, **_: Any) -> asyncio.Task[Any]:
        return asyncio.get_running_loop().create_task(coro)

    return IndexService(None, spawn=spawn)  # type: ignore[arg-type]


async def test_without_a_symbol_process_a_run_is_told_they_are_not_ready() -> None:
    source = _service().symbol_source()
    with pytest.raises(SymbolsUnavailable, match="not ready"):
        await source.find_definitions("anything")


async def test_with_one_a_run_asks_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def alpha():\n    pass\n")
    service = _service()
    process = SymbolProcess(RepoIndexer(tmp_path, IndexSettings()).build())
    service.symbols = process
    try:
        assert service.symbol_source() is process
        assert await process.wait_filled(30)
        assert [h.name for h in await service.symbol_source().find_definitions("alpha")] == [
            "alpha"
        ]
    finally:
        await process.close()
