"""Events the loop reports, and the Observer that receives them.

The loop knows nothing of terminals or LSP: it emits these events and a front end
renders them (the CLI prints, the server sends notifications and ``$/progress``).
Observers are called synchronously from the loop and must not block: anything
slow (I/O) is scheduled, not awaited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal


class RunState(StrEnum):
    """What a run is doing; ``agent/status`` reports every change."""

    IDLE = "idle"
    PREPARING = "preparing"
    MODEL_RUNNING = "model_running"
    TOOL_RUNNING = "tool_running"
    AWAITING_HUMAN = "awaiting_human"
    COMPLETED = "completed"
    FAILED = "failed"
    ABORTED = "aborted"


@dataclass(frozen=True)
class StatusChanged:
    state: RunState
    detail: str = ""
    #: With ``preparing``: the model that answers the loop starting now (in mixed mode
    #: the planner's, then the builder's).
    model: str | None = None


@dataclass(frozen=True)
class StreamText:
    text: str


@dataclass(frozen=True)
class StreamRestarted:
    """The model's stream was cut and its call starts again: the text streamed since
    the current step began is void and comes again."""

    reason: str
    attempt: int


@dataclass(frozen=True)
class StepStarted:
    step: int
    max_steps: int


@dataclass(frozen=True)
class ToolStarted:
    step: int
    max_steps: int
    call_id: str
    tool: str
    #: What the tool shows of its arguments (``Tool.summarize_args``): fit for progress.
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolFinished:
    step: int
    max_steps: int
    call_id: str
    tool: str
    args: dict[str, Any]  # as in ToolStarted
    success: bool
    summary: str


@dataclass(frozen=True)
class PlanStep:
    text: str
    status: str = "pending"  # pending | in_progress | done


@dataclass(frozen=True)
class PlanUpdated:
    goal: str
    steps: list[PlanStep] = field(default_factory=list)


@dataclass(frozen=True)
class UsageReported:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass(frozen=True)
class ContextMeasured:
    """How full the model's context is as a step's model call starts: ``used`` tokens of
    the ``limit`` the context manager keeps to (``context.max_context_tokens``)."""

    step: int
    used: int
    limit: int


@dataclass(frozen=True)
class ContextCompacted:
    """The older steps were compacted: what the conversation held before and after, and
    how many of the recent messages were kept as they were."""

    step: int
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class MessagesDelivered:
    """Messages the user sent while the run worked reached the model (their ids)."""

    ids: list[str]


@dataclass(frozen=True)
class InstructionsRead:
    """The project's instruction files the model was given: at the start of the run, and
    each time files the run reached join (``joined``: only those)."""

    files: list[str]
    joined: bool = False


@dataclass(frozen=True)
class CommandStarted:
    """A tool started a command in a child process here (sandboxed when it can be):
    ``command`` is what it runs, as the user approved it."""

    call_id: str
    tool: str
    command: str


@dataclass(frozen=True)
class CommandOutput:
    """Output of a running command as it comes (stdout and stderr interleaved), secrets
    already masked; the pieces of one call arrive in order."""

    call_id: str
    text: str


@dataclass(frozen=True)
class CommandEnded:
    """A command's process is gone: its exit code (None when it was stopped)."""

    call_id: str
    exit_code: int | None
    timed_out: bool = False


@dataclass(frozen=True)
class WorktreeSetup:
    """A new worktree's set-up step (``worktree.setup``) as it runs, before the run: its
    command (``started``), each line of its output (``output``), secrets already masked,
    and how it ended (``ended``: "exit code N", "timed out", "could not start")."""

    worktree: str
    kind: Literal["started", "output", "ended"]
    text: str


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not part of the conversation."""

    level: str  # info | warning | error
    message: str


@dataclass(frozen=True)
class SubagentStarted:
    """The run handed a task to a subagent (the model's ``delegate`` call ``call_id``):
    a child loop with a fresh conversation of its own starts now."""

    call_id: str
    agent: str
    task: str
    model: str
    #: The parent goes on meanwhile; the report reaches it when the child ends.
    background: bool = False


@dataclass(frozen=True)
class SubagentFinished:
    """A subagent ended: how, its report's opening (``summary``) and what it spent."""

    call_id: str
    agent: str
    status: str  # success | partial | failed
    summary: str
    steps: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass(frozen=True)
class SubagentEvent:
    """Something a subagent's loop did, nested under the parent's ``delegate`` call
    ``call_id``: one of StepStarted, ToolStarted, ToolFinished, PlanUpdated,
    CommandStarted, CommandOutput, CommandEnded. The inner event's own ``call_id``
    (a tool call of the child) is already made unique in the run:
    ``<parent call id>/<child call id>``."""

    call_id: str
    agent: str
    event: AgentEvent


AgentEvent = (
    StatusChanged
    | StreamText
    | StreamRestarted
    | StepStarted
    | ToolStarted
    | ToolFinished
    | PlanUpdated
    | UsageReported
    | InstructionsRead
    | ContextMeasured
    | ContextCompacted
    | MessagesDelivered
    | CommandStarted
    | CommandOutput
    | CommandEnded
    | WorktreeSetup
    | SubagentStarted
    | SubagentFinished
    | SubagentEvent
    | Notice
)

Observer = Callable[[AgentEvent], None]


def null_observer(event: AgentEvent) -> None:
    """An observer that ignores everything."""
