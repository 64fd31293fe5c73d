"""``RunHandle``: what the server adds to a run in flight (its task, progress, observer),
and ``CURRENT_RUN``, the run whose task is running.

The run's ids, cancel token and mailbox are the folder engine's ``RunTicket``; the handle
holds it. The run manager makes one handle per run and everything that needs to know the run holds
that same object: the manager's table of runs in flight (to cancel it), the inline review
book (whose hunks belong to which run, which run's inbox a decision goes to) and the
context of the run's task, so that the file access a tool calls knows whose edit it
sends. Handles compare and hash by identity: two runs are never the same run, even with
the same ids.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentls.agent.folder.runs import RunTicket

if TYPE_CHECKING:
    from agentls.agent.cancel import CancelToken
    from agentls.agent.folder.worktree_book import Worktree
    from agentls.agent.folder.worktree_runs import WorktreeRun
    from agentls.agent.run import RunOutcome
    from agentls.agent.run_messages import RunMessages
    from agentls.agent.workspace import FileAccess
    from agentls.server.observer import LspRunObserver
    from agentls.server.progress import RunProgress


@dataclass(eq=False)
class RunHandle:
    #: The engine's record of the run in flight.
    ticket: RunTicket
    task: asyncio.Task[RunOutcome] | None = None
    progress: RunProgress | None = None
    observer: LspRunObserver | None = None
    #: The worktree the run works in, when it was asked for one (not the user's tree).
    worktree_run: WorktreeRun | None = None
    #: What the run's file access is wrapped in (another folder's attached files).
    files_around: Callable[[FileAccess], FileAccess] | None = None

    @property
    def run_id(self) -> str:
        return self.ticket.run_id

    @property
    def session_id(self) -> str:
        return self.ticket.session_id

    @property
    def agent(self) -> str:
        return self.ticket.agent

    @property
    def token(self) -> CancelToken:
        """Set by ``agent/cancel``, ``$/cancelRequest``, the progress UI's cancel, shutdown."""
        return self.ticket.token

    @property
    def messages(self) -> RunMessages:
        """What the user writes to the run while it works (``agent/message``)."""
        return self.ticket.messages

    @property
    def worktree(self) -> Worktree | None:
        return self.worktree_run.worktree if self.worktree_run is not None else None


#: The run whose task is running (set before the run's task is created, so the task
#: and the file access it calls see it).
CURRENT_RUN: contextvars.ContextVar[RunHandle | None] = contextvars.ContextVar(
    "agentls_current_run", default=None
)


def task_context(run: RunHandle) -> contextvars.Context:
    """A context for the run's task in which ``CURRENT_RUN`` is ``run``."""
    context = contextvars.copy_context()
    context.run(CURRENT_RUN.set, run)
    return context
