"""``RunHandle``: one run of the server while it is in flight, and ``CURRENT_RUN``, the run
whose task is running.

The run manager makes one handle per run and everything that needs to know the run holds
that same object: the manager's table of runs in flight (to cancel it), the inline review
book (whose hunks belong to which run, which run's inbox a decision goes to) and the
context of the run's task, so that the file access a tool calls knows whose edit it
sends. Handles compare and hash by identity: two runs are never the same run, even with
the same ids.
"""

from __future__ import annotations

import asyncio
import contextvars
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentls.agent.cancel import CancelToken
from agentls.agent.run_messages import RunMessages

if TYPE_CHECKING:
    from agentls.agent.folder.worktree_book import Worktree
    from agentls.agent.folder.worktree_runs import WorktreeRun
    from agentls.agent.run import RunOutcome
    from agentls.server.observer import LspRunObserver
    from agentls.server.progress import RunProgress


@dataclass(eq=False)
class RunHandle:
    run_id: str
    session_id: str
    agent: str = "build"
    #: Set by ``agent/cancel``, ``$/cancelRequest``, the progress UI's cancel, shutdown.
    token: CancelToken = field(default_factory=CancelToken)
    #: What the user writes to the run while it works (``agent/message``).
    messages: RunMessages = field(default_factory=RunMessages)
    task: asyncio.Task[RunOutcome] | None = None
    progress: RunProgress | None = None
    observer: LspRunObserver | None = None
    #: The worktree the run works in, when it was asked for one (not the user's tree).
    worktree_run: WorktreeRun | None = None

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
