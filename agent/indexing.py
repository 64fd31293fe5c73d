"""The agent's view of the indexer: its settings from the agent's config, the rules every
walk of the workspace follows, and the index of a headless run.

One set of rules decides which files are the workspace's: the index, search, list_files
and the files a command is said to have changed all ask ``workspace_rules``, so what one
of them shows the others show too (``dist/`` hidden everywhere, ``.gitignore`` honoured
everywhere).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from agentls.agent.config.models import DEFAULT_EXCLUDE_DIRS, AppConfig, IndexerConfig
from agentls.agent.config.state_paths import cache_path
from agentls.indexer import IndexCache, RepoIndex, RepoIndexer
from agentls.indexer.ignore import IgnoreRules
from agentls.indexer.repomap import MapFocus, paths_in
from agentls.indexer.settings import DEFAULT_EXCLUDE_PATTERNS, IndexSettings
from agentls.indexer.symbol_source import LocalSymbols, SymbolSource, no_symbols

log = logging.getLogger(__name__)

#: The agent's own state (sessions, index cache) is never part of the workspace's files.
AGENT_DIRS = (".agentls",)


def index_settings(config: IndexerConfig) -> IndexSettings:
    """Translate the user's ``indexer`` config into the indexer's plain settings."""
    return IndexSettings(
        exclude_dirs=(*DEFAULT_EXCLUDE_DIRS, *AGENT_DIRS, *config.exclude_dirs),
        exclude_patterns=(*DEFAULT_EXCLUDE_PATTERNS, *config.exclude_patterns),
        max_file_size=config.max_file_size,
        hold_text=config.hold_text,
        max_text_bytes=config.max_text_bytes,
    )


def workspace_rules(root: Path | str, config: IndexerConfig) -> IgnoreRules:
    """The rules that leave a path of ``root`` out of every walk (the index's rules)."""
    return IgnoreRules(root, index_settings(config))


CACHE_FILE = ".agentls/cache/index.json"


async def build_index(config: AppConfig) -> RepoIndex | None:
    """The index of ``config.workspace.root``, or None when disabled or it fails.

    A failed build is not a failed run: the agent works without the tree.
    """
    if not config.indexer.enabled:
        return None
    root = config.workspace.root
    cache_file = cache_path(root, CACHE_FILE) if config.indexer.use_cache else None
    cache = IndexCache(cache_file) if cache_file is not None else None
    try:
        return await RepoIndexer(root, index_settings(config.indexer), cache).abuild()
    except Exception:
        log.warning("indexing %s failed; running without the project tree", root, exc_info=True)
        return None


SYMBOLS_CACHE_FILE = ".agentls/cache/symbols.json"
REPO_MAP_HEADING = "## Repo map (ranked for this task; `path:` then `line: signature`)"
#: How long a run's first map waits for the background symbol fill; past it, the
#: map shows what is filled so far rather than delay the run.
MAP_FILL_WAIT_S = 3.0
#: A run never waits longer than this for its map (ranking a huge tree): past it, the
#: run starts without one.
MAP_RENDER_WAIT_S = 5.0


def local_symbols(index: RepoIndex | None) -> SymbolSource:
    """The symbols of ``index`` kept in this process (none without an index)."""
    if index is None:
        return no_symbols
    return LocalSymbols(index, cache_path(index.root, SYMBOLS_CACHE_FILE))


async def task_map(
    symbols: SymbolSource,
    config: AppConfig,
    prompt: str,
    open_paths: Sequence[str] = (),
    edited_paths: Sequence[str] = (),
) -> str:
    """The repo map section for a run of ``prompt``, or "" (no symbols, budget 0, failed).

    ``open_paths`` are the editor's open files (absolute); ``edited_paths`` the files the
    session's earlier runs changed (workspace-relative), newest first.

    Computed once per run: the same bytes every step keep the provider's prompt cache.
    """
    budget = config.indexer.map_tokens
    if budget <= 0:
        return ""
    root = config.workspace.root.resolve()  # as the index names paths: links resolved
    try:
        await symbols.wait_filled(MAP_FILL_WAIT_S)
        focus = MapFocus(
            prompt=prompt,
            open_paths=tuple(paths_in(open_paths, root)),
            recent_paths=tuple(edited_paths),
        )
        text = await asyncio.wait_for(symbols.repo_map(focus, budget), MAP_RENDER_WAIT_S)
    except TimeoutError:
        log.warning("the repo map took over %.0f s; prompt sent without it", MAP_RENDER_WAIT_S)
        return ""
    except Exception:
        log.warning("building the repo map failed; prompt sent without it", exc_info=True)
        return ""
    return f"{REPO_MAP_HEADING}\n{text}" if text else ""
