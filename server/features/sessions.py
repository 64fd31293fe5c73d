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

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import FolderParams, SessionParams

LIST_METHOD = "agent/sessions"
GET_METHOD = "agent/session"


def register(ls: AgentLanguageServer) -> None:
    # Both wait for the configuration (the workspace root decides where sessions are)
    # and read the files in a thread: the event loop stays free for the editor. The
    # implementation (pydantic, the session store) is imported on first use, so that
    # `initialize` is answered before any of it loads.
    @ls.handler(LIST_METHOD)
    async def agent_sessions(ls: AgentLanguageServer, params: FolderParams) -> dict[str, Any]:
        from agentls.server.sessions_view import list_sessions, store

        folder = await ls.folder_named(params.folder)
        return await asyncio.to_thread(list_sessions, store(folder))

    @ls.handler(GET_METHOD)
    async def agent_session(ls: AgentLanguageServer, params: SessionParams) -> dict[str, Any]:
        from agentls.server.sessions_view import get_session, store

        folder = await ls.folder_named(params.folder)
        return await asyncio.to_thread(get_session, store(folder), params.session_id)
