"""How long sessions are kept: the folder's most recently used ``sessions.keep`` sessions.

A session is one JSONL file and, once a run changed a file, its checkpoint directory of
previous bytes (capped per session by the store); nothing else bounds how many a folder
collects over months of runs. So when a run starts a session that has no file yet, the
least recently used sessions beyond ``keep`` are removed, each with its checkpoints and the
ledger that vouched for them. A session's time is its file's modification time (every
entry appended touches it), so a session continued today is young whatever its age.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
from pathlib import Path

from agentls.agent.checkpoints.ledger import Ledger
from agentls.agent.sessions.store import SessionStore

log = logging.getLogger(__name__)


def _used(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def prune_sessions(sessions: SessionStore, keep: int, *, starting: str) -> list[str]:
    """Remove the sessions beyond the ``keep`` most recently used, counting ``starting``
    (the session a run is starting, never removed) as the newest; 0 keeps them all.
    Returns the ids removed. Blocking: call it on a thread from a loop."""
    if keep <= 0:
        return []
    try:
        # A link in place of a session file or a checkpoint directory is a repository's:
        # neither followed nor counted.
        files = [
            p
            for p in sessions.root.glob("*.jsonl")
            if p.is_file() and not p.is_symlink() and p.stem != starting
        ]
    except OSError:
        return []
    files.sort(key=_used, reverse=True)
    removed = []
    for path in files[keep - 1 :]:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        checkpoints = path.with_suffix(".checkpoints")
        if checkpoints.is_dir() and not checkpoints.is_symlink():
            shutil.rmtree(checkpoints, ignore_errors=True)
            Ledger(checkpoints).forget()
        removed.append(path.stem)
    if removed:
        log.info("sessions: removed %d beyond the %d most recent", len(removed), keep)
    return removed
