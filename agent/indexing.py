"""Building the repository index for a headless run, from the agent's config."""

from __future__ import annotations

import logging

from agentls.agent.config import AppConfig
from agentls.agent.tools.search import index_settings
from agentls.indexer import IndexCache, RepoIndex, RepoIndexer

log = logging.getLogger(__name__)

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
