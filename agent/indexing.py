"""The agent's view of the indexer: its settings from the agent's config, the rules every
walk of the workspace follows, and the index of a headless run.

One set of rules decides which files are the workspace's: the index, search, list_files
and the files a command is said to have changed all ask ``workspace_rules``, so what one
of them shows the others show too (``dist/`` hidden everywhere, ``.gitignore`` honoured
everywhere).
"""

from __future__ import annotations

import logging
from pathlib import Path

from agentls.agent.config import DEFAULT_EXCLUDE_DIRS, AppConfig, IndexerConfig
from agentls.indexer import IndexCache, RepoIndex, RepoIndexer
from agentls.indexer.ignore import IgnoreRules
from agentls.indexer.settings import DEFAULT_EXCLUDE_PATTERNS, IndexSettings

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
    cache = IndexCache(root / CACHE_FILE) if config.indexer.use_cache else None
    try:
        return await RepoIndexer(root, index_settings(config.indexer), cache).abuild()
    except Exception:
        log.warning("indexing %s failed; running without the project tree", root, exc_info=True)
        return None
