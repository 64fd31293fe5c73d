"""``agent/sessions`` and ``agent/session``: the conversations kept in the workspace.

- ``agent/sessions {}`` → ``{sessions: [{sessionId, title, updated, status, runs,
  entries}]}``, newest first. ``status`` is the last run's (``success``, ``partial``,
  ``failed``) or ``interrupted`` when that run never finished (the server died).
- ``agent/session {sessionId}`` → ``{sessionId, entries: [...], torn}``: every stored
  entry (typed by ``type``) for a client to render the history; ``torn`` says that a
  partial last line (a crash mid-write) was ignored. An unknown id is InvalidParams.

A run continues a session by passing its ``sessionId`` to ``agent/run``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from pygls.exceptions import JsonRpcInvalidParams

from agent.sessions import SessionIdError, SessionStore, store_for
from server.runs import parse_params

if TYPE_CHECKING:
    from server.app import AgentLanguageServer

LIST_METHOD = "agent/sessions"
GET_METHOD = "agent/session"


class SessionParams(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    session_id: str = Field(alias="sessionId", min_length=1, max_length=128)


def _store(ls: AgentLanguageServer) -> SessionStore:
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


def register(ls: AgentLanguageServer) -> None:
    from server.app import guarded

    # Both wait for the configuration (the workspace root decides where sessions are)
    # and read the files in a thread: the event loop stays free for the editor.
    @ls.feature(LIST_METHOD)
    @guarded(LIST_METHOD)
    async def agent_sessions(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        await ls.wait_ready()
        return await asyncio.to_thread(list_sessions, _store(ls))

    @ls.feature(GET_METHOD)
    @guarded(GET_METHOD)
    async def agent_session(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        parsed: SessionParams = parse_params(SessionParams, params)
        await ls.wait_ready()
        return await asyncio.to_thread(get_session, _store(ls), parsed.session_id)
