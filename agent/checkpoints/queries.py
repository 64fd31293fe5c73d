"""What the checkpoints say: the runs that have one, the store of a run, the files
the session has been editing.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from agentls.agent.checkpoints.store import CheckpointStore
from agentls.agent.errors import InvalidTargetError
from agentls.agent.sessions.store import SessionStore


def edited_recently(store: CheckpointStore, limit: int = 8) -> list[str]:
    """The files the session's runs changed, newest run first, that still exist: what
    the user and the agent have been working on, whatever their modification times say."""
    seen: dict[str, None] = {}
    for run in reversed(store.runs()):
        for path in run.before:
            after = run.after.get(path)
            if after is not None and after.sha is None:
                continue  # the run deleted it
            seen.setdefault(path, None)
    return list(seen)[:limit]


def session_stores(sessions: SessionStore) -> list[tuple[str, CheckpointStore]]:
    """The checkpoint stores of every session, most recently used first."""
    try:
        # A link in place of a checkpoint directory is a repository's, never read.
        dirs = [d for d in sessions.root.glob("*.checkpoints") if d.is_dir() and not d.is_symlink()]
    except OSError:
        return []

    def used(directory: Path) -> float:
        try:
            return (directory / "record.jsonl").stat().st_mtime
        except OSError:
            return 0.0

    # Pruned with the session: a session file removed takes its checkpoints along.
    for directory in [d for d in dirs if not d.with_suffix(".jsonl").exists()]:
        shutil.rmtree(directory, ignore_errors=True)
        CheckpointStore(directory).ledger.forget()
        dirs.remove(directory)
    dirs.sort(key=used, reverse=True)
    return [(d.name.removesuffix(".checkpoints"), CheckpointStore(d)) for d in dirs]


def list_checkpoints(sessions: SessionStore, session_id: str | None = None) -> list[dict[str, Any]]:
    """Runs with the files each changed, newest first (``agent/checkpoints``)."""
    if session_id is not None:
        stores = [(session_id, CheckpointStore.for_session(sessions, session_id))]
    else:
        stores = session_stores(sessions)
    runs: list[dict[str, Any]] = []
    for sid, store in stores:
        for run in store.runs():
            runs.append({**run.to_json(), "sessionId": sid})
    return sorted(runs, key=lambda r: float(r["at"]), reverse=True)


def foreign_runs(sessions: SessionStore) -> list[tuple[str, list[str]]]:
    """Per record, the run ids of lines agentls did not write (it neither lists nor
    restores them): a repository shipped them, or another program wrote them."""
    found = []
    for _, store in session_stores(sessions):
        foreign = store.read().foreign
        if foreign:
            found.append((str(store.record), foreign))
    return found


def store_of_run(sessions: SessionStore, run_id: str) -> CheckpointStore:
    """The checkpoint store that recorded ``run_id``."""
    for _, store in session_stores(sessions):
        read = store.read()
        if any(r.run_id == run_id for r in read.runs):
            return store
        if run_id in read.foreign:
            raise InvalidTargetError(
                f"run {run_id!r} in {store.record} was not recorded by agentls for you "
                "(a repository can ship such a record, another program can write one): "
                "it is neither listed nor restored"
            )
    raise InvalidTargetError(
        f"no checkpoint for run {run_id!r}; `agentls checkpoints` lists the runs that have one"
    )
