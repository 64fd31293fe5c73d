"""Where agentls writes its own state inside a workspace: never through a symlink.

Sessions, checkpoints and caches live under ``.agentls/`` by default. A repository that
commits ``.agentls`` as a symlink to somewhere else (``.agentls -> /home/me/.ssh``) would
otherwise make agentls write there; a symlink on the way is refused instead, with a
message that says what to do. Paths the user gave as absolute (their own config) are
theirs to choose.
"""

from __future__ import annotations

import logging
from pathlib import Path

from agentls.agent.errors import AgentError

log = logging.getLogger(__name__)


class StatePathError(AgentError):
    """A directory agentls would keep its state in is reached through a symlink."""


def state_path(root: Path, relative: Path | str) -> Path:
    """``root / relative``, refusing any symlink between ``root`` and the end."""
    path = Path(relative)
    if path.is_absolute():
        return path
    current = Path(root)
    for part in path.parts:
        current = current / part
        if current.is_symlink():
            raise StatePathError(
                f"{current} is a symlink: agentls does not follow one for its own state "
                "(it could write outside the workspace). Remove it, or point "
                "sessions.dir at a real directory in your user config."
            )
    return Path(root) / path


def cache_path(root: Path, relative: Path | str) -> Path | None:
    """Like ``state_path`` for a cache agentls can do without: None (no cache) when it
    would be reached through a symlink."""
    try:
        return state_path(root, relative)
    except StatePathError as exc:
        log.warning("not caching: %s", exc)
        return None
