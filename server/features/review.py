"""``agent/reviewDecision`` (notification): the user kept, undid or changed hunks of an
agent edit under inline review (server/inline_review.py). Recorded in the run's session
and told to the model at its next model call; a bad notification is logged and dropped
(by the protocol, before this handler: server/jsonrpc.py).

``agent/reviewAutoSave`` (notification): how the editor's auto-save treats a file of the
edit the client is about to answer."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pygls.uris import to_fs_path

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import ReviewAutoSaveParams, ReviewDecisionParams

log = logging.getLogger(__name__)

METHOD = "agent/reviewDecision"
AUTOSAVE_METHOD = "agent/reviewAutoSave"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD, notification=True)
    async def review_decision(ls: AgentLanguageServer, params: ReviewDecisionParams) -> None:
        await ls.wait_ready()
        path = to_fs_path(params.uri)
        folder = (ls.folders.holding(path) if path else None) or ls.default_folder
        store = folder.engine.sessions(folder.config)
        note = await ls.reviews.decide(params, store)
        log.info("%s %s v%d: %s", METHOD, params.uri, params.version, note or "(nothing new)")

    # Not async: it must be in the book before the answer to the edit that follows it
    # on the wire is read, and the reading goes on as soon as this returns.
    @ls.handler(AUTOSAVE_METHOD, notification=True)
    def review_autosave(ls: AgentLanguageServer, params: ReviewAutoSaveParams) -> None:
        ls.reviews.autosaved(params)
