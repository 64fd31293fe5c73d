"""What ``agent/sessions`` and ``agent/session`` answer (server.features.sessions).

Kept apart so the feature module imports nothing heavy before ``initialize``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.sessions import SessionIdError, SessionStore, store_for

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer


class SessionParams(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    session_id: str = Field(alias="sessionId", min_length=1, max_length=128)


def store(ls: AgentLanguageServer) -> SessionStore:
    config = ls.config
    return store_for(config.workspace.root, config.sessions.dir)


def list_sessions(store: SessionStore) -> dict[str, Any]:
    return {"sessions": [s.to_json() for s in store.list()]}


def get_session(store: SessionStore, session_id: str) -> dict[str, Any]:
    try:
        if not store.exists(session_id):
            raise JsonRpcInvalidParams(f"no session {session_id!r}")
        session = store.open(session_id)
    except SessionIdError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    return {
        "sessionId": session.id,
        "entries": [entry.model_dump(mode="json") for entry in session.entries],
        "torn": session.torn,
    }
