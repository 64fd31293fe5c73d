"""``RunBook``: a folder's runs in flight, whichever front end started them.

What every front end needs to know about a run while it works, and nothing of how it is
shown: its ids, its cancel token, its mailbox (what the user sends it meanwhile). The
book refuses a second run of a session and a run id already in flight, so two runs never
write one session's record at once; it cancels a run and hands it the user's messages,
with reasons the user can read when it cannot. What a medium adds to a run (the server's
progress and inline review, ACP's turn) is the front end's, keyed by the ticket's run id.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

from agentls.agent.cancel import CancelToken
from agentls.agent.errors import AgentError
from agentls.agent.run_messages import MessageMode, PendingMessage, RunMessageError, RunMessages

log = logging.getLogger(__name__)


class RunRefused(AgentError):
    """A run that cannot begin: its id, or its session, has a run in flight."""


@dataclass(eq=False)
class RunTicket:
    """One run in flight: its ids, and what stops it and speaks to it while it works."""

    run_id: str
    session_id: str
    agent: str = "build"
    #: Set by whoever cancels the run (the user, the client, shutdown).
    token: CancelToken = field(default_factory=CancelToken)
    #: What the user writes to the run while it works.
    messages: RunMessages = field(default_factory=RunMessages)


def new_id() -> str:
    """A run or session id: short, and unique enough within one folder's runs."""
    return uuid.uuid4().hex[:12]


class RunBook:
    """The runs in flight of one folder engine."""

    def __init__(self) -> None:
        self._runs: dict[str, RunTicket] = {}

    def begin(self, run_id: str | None, session_id: str | None, agent: str) -> RunTicket:
        """A ticket for a new run (ids made when not given); RunRefused when the run id is
        in flight or the session already has a run in flight."""
        run_id = run_id or new_id()
        session_id = session_id or new_id()
        if run_id in self._runs:
            raise RunRefused(f"run {run_id!r} is already in flight")
        if any(t.session_id == session_id for t in self._runs.values()):
            raise RunRefused(
                f"session {session_id!r} already has a run in flight; wait for it or cancel it"
            )
        ticket = self._runs[run_id] = RunTicket(run_id, session_id, agent)
        return ticket

    def end(self, run_id: str) -> list[PendingMessage]:
        """The run is over: no longer in flight, so the book refuses its messages. A run
        closes its own mailbox when it ends, telling the user what the model never read;
        one that never started (its worktree's set-up failed) has it closed here, and the
        front end names the messages returned, so none is lost without a word."""
        ticket = self._runs.pop(run_id, None)
        if ticket is None:
            return []
        return ticket.messages.close(f"run {run_id} has ended")

    def get(self, run_id: str) -> RunTicket | None:
        return self._runs.get(run_id)

    def cancel(self, run_id: str, reason: str = "cancelled by the user") -> bool:
        """Ask run ``run_id`` to stop; False if no such run is in flight, or it is
        already being cancelled."""
        ticket = self._runs.get(run_id)
        if ticket is None or ticket.token.cancelled:
            return False
        log.info("run %s: %s", run_id, reason)
        ticket.token.cancel(reason)
        return True

    def message(self, run_id: str, text: str, mode: MessageMode = "queue") -> PendingMessage:
        """Give run ``run_id`` the user's message; RunMessageError when it cannot take it."""
        ticket = self._runs.get(run_id)
        if ticket is None:
            raise RunMessageError(f"no run {run_id} is in flight (it ended, or never started)")
        if ticket.token.cancelled:
            raise RunMessageError(f"run {run_id} is being cancelled")
        return ticket.messages.send(text, mode)

    def cancel_all(self, reason: str) -> None:
        for run_id in list(self._runs):
            self.cancel(run_id, reason)

    def in_flight(self) -> list[RunTicket]:
        """The runs in flight, oldest first."""
        return list(self._runs.values())
