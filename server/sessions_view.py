"""What ``agent/sessions`` and ``agent/session`` answer (server.features.sessions).

Kept apart so the feature module imports nothing heavy before ``initialize``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.contract import SessionInfo
from agentls.agent.sessions.store import SessionIdError, SessionStore
from agentls.server.protocol import SessionResult, SessionsResult

if TYPE_CHECKING:
    from agentls.server.folders import ServerFolder


def store(folder: ServerFolder) -> SessionStore:
    """The folder's sessions (and their checkpoints)."""
    return folder.engine.sessions(folder.config)


def list_sessions(store: SessionStore) -> dict[str, Any]:
    sessions = [SessionInfo.model_validate(s.to_json()) for s in store.list()]
    return SessionsResult(sessions=sessions).to_wire()


def get_session(store: SessionStore, session_id: str) -> dict[str, Any]:
    try:
        if not store.exists(session_id):
            raise JsonRpcInvalidParams(f"no session {session_id!r}")
        session = store.open(session_id)
    except SessionIdError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    result = SessionResult(session_id=session.id, entries=session.entries, torn=session.torn)
    return result.to_wire()
