"""find_symbol and find_references tell the model what they found, and when there is
nothing to ask, why."""

from __future__ import annotations

from pathlib import Path

from agentls.agent.config.models import AppConfig
from agentls.agent.indexing import local_symbols
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.symbols import (
    FindReferencesArgs,
    FindReferencesTool,
    FindSymbolArgs,
    FindSymbolTool,
)
from agentls.agent.workspace import DiskFileAccess
from agentls.indexer import IndexSettings, RepoIndexer
from agentls.indexer.index import RepoIndex
from agentls.indexer.symbol_source import SymbolSource
from agentls.indexer.symbols_client import SymbolProcess


def _workspace(root: Path) -> RepoIndex:
    (root / "shop.py").write_text("def price(cart):\n    return 0\n\ntotal = price([])\n")
    return RepoIndexer(root, IndexSettings()).build()


async def _call(
    root: Path, index: RepoIndex | None, symbols: SymbolSource, name: str
) -> tuple[ToolResult, ToolResult]:
    config = AppConfig.model_validate({"workspace": {"root": str(root)}})
    run = RunContext(files=DiskFileAccess(root), config=config, index=index, symbols=symbols)
    ctx = ToolContext(run)
    found = await FindSymbolTool().run(FindSymbolArgs(name=name), ctx)
    used = await FindReferencesTool().run(FindReferencesArgs(name=name), ctx)
    return found, used


async def test_definitions_and_references_with_their_lines(tmp_path: Path) -> None:
    index = _workspace(tmp_path)
    found, used = await _call(tmp_path, index, local_symbols(index), "price")
    assert (found.success, found.output) == (True, "shop.py:1: def price(cart):")
    assert (used.success, used.output) == (True, "shop.py:4: total = price([])")


async def test_without_an_index_the_model_is_told_so(tmp_path: Path) -> None:
    _workspace(tmp_path)
    found, used = await _call(tmp_path, None, local_symbols(None), "price")
    for result in (found, used):
        assert not result.success
        assert "no symbol index for this workspace" in (result.error or "")
        assert "use search_code or grep instead" in (result.error or "")


async def test_a_symbol_process_that_cannot_start_is_named(tmp_path: Path) -> None:
    index = _workspace(tmp_path)
    broken = SymbolProcess(index, command=[str(tmp_path / "no-such-python")])
    found, used = await _call(tmp_path, index, broken, "price")
    for result in (found, used):
        assert not result.success
        assert "could not start the symbol process" in (result.error or "")
