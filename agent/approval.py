"""Who decides whether a tool call may run, and the one place a human is asked.

One function, ``decide``, makes the policy decision for every tool call (as codex
does): ``skip`` (run it), ``needs_approval`` (ask a human first) or ``forbidden``.
The loop asks it too before it runs a batch of calls in parallel.

An ``Approver`` is every question a run puts to the human, whatever the UI:

- ``ask``: may this tool call run (a terminal y/n, an LSP ``window/showMessageRequest``);
- ``confirm_edit``: may this change be made. By default the question travels with
  the edit (``FileAccess.apply(confirm=True)``), in whatever form the front end's
  FileAccess chose once for its client: annotated edits, a question before a plain
  edit, the editor's own prompt. A front end with another way (an editor that applies
  at once as pending and reports per-hunk decisions later) overrides this method;
  no tool changes;
- ``ask_user``: a free question from the model (``NoTTYError`` when nobody can answer);
- ``edit_reviewed``: the late answer to an edit that was applied as pending (an editor
  that reviews edits while the run goes on reports the user's keep/undo per hunk later,
  possibly after the run ended).

The run wraps its Approver in ``session_recorder.RecordingApprover``, so every decision,
edits included, becomes an ``approval_decision`` entry of the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentls.agent.errors import NoTTYError

if TYPE_CHECKING:
    from agentls.agent.config import AgentConfig
    from agentls.agent.tools.base import AnyTool
    from agentls.agent.workspace import EditOutcome, FileAccess, FileChange

DecisionKind = Literal["skip", "needs_approval", "forbidden"]


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    reason: str = ""


def decide(
    tool: AnyTool,
    args: dict[str, Any],
    agent: AgentConfig,
    *,
    allowed_for_run: frozenset[str] = frozenset(),
) -> Decision:
    """The policy for one call, from confirm_mode, the tool's flags and allow-lists."""
    if agent.allowed_tools and tool.name not in agent.allowed_tools:
        return Decision("forbidden", f"the agent is not allowed to use {tool.name}")
    if agent.confirm_mode == "yolo":
        return Decision("skip")
    if tool.name in allowed_for_run:
        return Decision("skip", "allowed for this run")
    if agent.confirm_mode == "confirm-all":
        return Decision("needs_approval", "confirm-all asks before every tool")
    if tool.sensitive:
        auto = tool.auto_approval(args, agent)
        if auto:
            return Decision("skip", auto)
        return Decision("needs_approval", f"{tool.name} is sensitive")
    return Decision("skip")


AnswerKind = Literal["approve", "approve_run", "deny", "modify", "abort"]


@dataclass(frozen=True)
class ApprovalRequest:
    """What a human is asked about."""

    run_id: str
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    #: Plain-words explanation, e.g. what a shell command will do.
    explanation: str = ""
    #: The exact thing that will run or change (a command, code, a diff).
    preview: str = ""
    #: The argument a human may edit before it runs (``command``, ``code``), if any.
    editable_arg: str | None = None


@dataclass(frozen=True)
class ApprovalAnswer:
    kind: AnswerKind
    #: For ``modify``: the arguments to run instead.
    args: dict[str, Any] = field(default_factory=dict)
    message: str = ""


@dataclass(frozen=True)
class EditRequest:
    """A change a tool call wants made that the policy says a human must confirm."""

    run_id: str
    call_id: str
    tool: str
    changes: Sequence[FileChange]


@dataclass(frozen=True)
class EditReview:
    """The user's decision on part of an edit that was applied as pending."""

    run_id: str
    #: Which decision this is (a hunk at a document version): recorded once.
    call_id: str
    tool: str
    decision: str  # approve (kept), deny (undone), modify (changed by the user)
    message: str
    args: dict[str, Any] = field(default_factory=dict)


class Approver(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer: ...

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome: ...

    async def ask_user(self, question: str) -> str | None: ...

    async def edit_reviewed(self, review: EditReview) -> None: ...


class BaseApprover:
    """Defaults every front end starts from: edits confirmed by the FileAccess, and
    nobody to answer a free question."""

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer("deny", message="no one can be asked")

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        return await files.apply(request.changes, confirm=True)

    async def ask_user(self, question: str) -> str | None:
        raise NoTTYError("nobody can be asked here")

    async def edit_reviewed(self, review: EditReview) -> None:
        """Nothing to do by default: the recording wrapper writes it to the session."""


class DenyingApprover(BaseApprover):
    """For front ends that cannot ask anybody: every request is refused, with why."""

    def __init__(self, why: str) -> None:
        self.why = why

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer("deny", message=self.why)
