"""The one place a ``FolderEngine`` is built with its real parts.

The engine (agent/) may not import the language servers agentls starts (langservers/),
so it takes a factory; every front end gets its folder engine here, with that factory.
"""

from __future__ import annotations

from pathlib import Path

from agentls.agent.config.models import DiagnosticsConfig
from agentls.agent.folder.folder import FolderEngine, LanguageServerPool
from agentls.agent.folder.media import Medium


def folder_engine(medium: Medium) -> FolderEngine:
    """A folder's engine for a front end speaking through ``medium``."""
    return FolderEngine(medium, language_servers=_language_servers)


def _language_servers(
    settings: DiagnosticsConfig, root: Path, *, trusted: bool, how_to_trust: str
) -> LanguageServerPool:
    # Imported when a run first needs them, not when a front end starts.
    from agentls.langservers import LanguageServers

    return LanguageServers(settings, root, trusted=trusted, how_to_trust=how_to_trust)
