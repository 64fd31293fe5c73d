"""``agent/reviewDecision`` (notification): the user kept, undid or changed hunks of an
agent edit under inline review (server/inline_review.py). Recorded in the run's session
and told to the model at its next step; a bad notification is logged and dropped."""

from __future__ import annotations

from typing import Any

from agentls.server.app import AgentLanguageServer
from agentls.server.settings import plain

METHOD = "agent/reviewDecision"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD, notification=True)
    async def review_decision(ls: AgentLanguageServer, params: Any) -> None:
        import logging

        from pydantic import ValidationError

        from agentls.agent.sessions import store_for
        from agentls.server.inline_review import ReviewDecisionParams

        log = logging.getLogger(__name__)
        try:
            decision = ReviewDecisionParams.model_validate(plain(params) or {})
        except ValidationError as exc:
            log.warning("%s: invalid params, ignored: %s", METHOD, exc)
            return
        await ls.wait_ready()
        config = ls.config
        store = store_for(config.workspace.root, config.sessions.dir)
        note = await ls.reviews.decide(decision, store)
        log.info("%s %s v%d: %s", METHOD, decision.uri, decision.version, note or "(nothing new)")
