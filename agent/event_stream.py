"""The run's events as a stream of typed JSON objects: what ``agentls run --output-format
stream-json`` writes, one object a line, for a program that follows a run without a
terminal, LSP or ACP.

Each object has a ``type`` (which event) and the stream's ``version``; names are camelCase
like the rest of agentls's protocols (``WireModel``), and the end event carries the same
``RunResult`` ``agent/run`` and ``--json`` answer with. The published JSON Schema
(``agent/schema/stream.schema.json``) and the reference in docs/headless.md are generated
from these models by ``python -m agentls.cli.stream_schema``.

``stream_event`` turns an engine event (``agent.events``) into its stream object; the
front end adds the start, the approvals, the questions and the end, which are its own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from agentls.agent import events
from agentls.agent.contract import PlanStepStatus, RunResult
from agentls.agent.wire_model import WireModel

#: Raised when an event changes in a way a reader of version 1 would misread (a field
#: removed or retyped); new event types and new optional fields keep the version.
STREAM_VERSION: Literal[1] = 1


class StreamEventBase(WireModel):
    """What every line has."""

    version: Literal[1] = Field(STREAM_VERSION, description="The stream's format version.")


class RunStarted(StreamEventBase):
    """The first line: the run, its session and the model the run asked for."""

    type: Literal["start"] = "start"
    run_id: str
    session_id: str
    agent: str
    model: str | None = Field(None, description="The model named for the run, if any.")
    prompt: str


class StatusEvent(StreamEventBase):
    """The run's state changed; with ``preparing``, ``model`` is the model that answers
    the loop starting now."""

    type: Literal["status"] = "status"
    state: events.RunState
    detail: str = ""
    model: str | None = None


class TextEvent(StreamEventBase):
    """A piece of the model's text, as it streams (or whole, when it does not)."""

    type: Literal["text"] = "text"
    text: str


class TextRestartEvent(StreamEventBase):
    """The model's stream was cut and its call starts again: the text since the step
    began is void and comes again."""

    type: Literal["text_restart"] = "text_restart"
    reason: str
    attempt: int


class StepEvent(StreamEventBase):
    """A step (a model call and the tool calls it asks for) begins."""

    type: Literal["step"] = "step"
    step: int
    max_steps: int


class ToolStartEvent(StreamEventBase):
    """A tool call begins; ``args`` is what the tool shows of its arguments."""

    type: Literal["tool_start"] = "tool_start"
    step: int
    call_id: str
    tool: str
    args: dict[str, Any]
    parent_call_id: str | None = Field(
        None, description="The `delegate` call of the subagent whose call this is."
    )
    agent: str | None = Field(None, description="That subagent's name.")


class ToolEndEvent(StreamEventBase):
    """A tool call ended: whether it succeeded and its result's summary."""

    type: Literal["tool_end"] = "tool_end"
    step: int
    call_id: str
    tool: str
    args: dict[str, Any]
    success: bool
    summary: str
    parent_call_id: str | None = None
    agent: str | None = None


class StreamPlanStep(WireModel):
    text: str
    status: PlanStepStatus


class PlanEvent(StreamEventBase):
    """The agent's plan, whole, each time it changes."""

    type: Literal["plan"] = "plan"
    goal: str
    steps: list[StreamPlanStep]
    parent_call_id: str | None = None
    agent: str | None = None


class UsageEvent(StreamEventBase):
    """Tokens of one model call."""

    type: Literal["usage"] = "usage"
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ContextEvent(StreamEventBase):
    """How full the model's context is (``used`` of ``limit`` tokens), or that it was
    compacted (``compacted`` with the sizes before and after)."""

    type: Literal["context"] = "context"
    step: int
    used: int | None = None
    limit: int | None = None
    compacted: bool = False
    tokens_before: int | None = None
    tokens_after: int | None = None


class InstructionsEvent(StreamEventBase):
    """The project's instruction files the model was given (``joined``: only new ones)."""

    type: Literal["instructions"] = "instructions"
    files: list[str]
    joined: bool = False


class MessagesDeliveredEvent(StreamEventBase):
    """Messages sent while the run worked reached the model (their ids)."""

    type: Literal["messages_delivered"] = "messages_delivered"
    ids: list[str]


class CommandEvent(StreamEventBase):
    """A command a tool runs: ``started`` (its command), ``output`` (a piece of its
    output, secrets masked), ``ended`` (its exit code, null when stopped)."""

    type: Literal["command"] = "command"
    call_id: str
    phase: Literal["started", "output", "ended"]
    tool: str | None = None
    command: str | None = None
    text: str | None = None
    exit_code: int | None = None
    timed_out: bool | None = None
    parent_call_id: str | None = None
    agent: str | None = None


class WorktreeSetupEvent(StreamEventBase):
    """A new worktree's set-up command, its output and how it ended."""

    type: Literal["worktree_setup"] = "worktree_setup"
    worktree: str
    phase: Literal["started", "output", "ended"]
    text: str


class NoticeEvent(StreamEventBase):
    """Something the user should know that is not part of the conversation."""

    type: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"]
    message: str


class SubagentStartEvent(StreamEventBase):
    """A subagent took a task (the ``delegate`` call ``callId``)."""

    type: Literal["subagent_start"] = "subagent_start"
    call_id: str
    agent: str
    task: str
    model: str
    background: bool = False


class SubagentEndEvent(StreamEventBase):
    """A subagent ended: how, its report's opening and what it spent."""

    type: Literal["subagent_end"] = "subagent_end"
    call_id: str
    agent: str
    status: Literal["success", "partial", "failed"]
    summary: str
    steps: int
    total_tokens: int = 0


class ApprovalRequestEvent(StreamEventBase):
    """The run asks before a tool call; the answer follows as ``approval_answer``."""

    type: Literal["approval_request"] = "approval_request"
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    preview: str = ""
    agent: str | None = Field(None, description="The subagent asking, if not the run's agent.")


ApprovalKind = Literal["approve", "approve_run", "approve_always", "deny", "modify", "abort"]


class ApprovalAnswerEvent(StreamEventBase):
    """How the approval of ``callId`` was answered (read from stdin in this shape with
    ``--input-format stream-json``)."""

    type: Literal["approval_answer"] = "approval_answer"
    call_id: str
    kind: ApprovalKind
    message: str = ""
    args: dict[str, Any] | None = Field(None, description="With `modify`: the arguments to run.")


class QuestionEvent(StreamEventBase):
    """The agent asks the user a question (``ask_user``); ``answer`` follows."""

    type: Literal["question"] = "question"
    question_id: str
    question: str


class AnswerEvent(StreamEventBase):
    """The user's answer to ``questionId`` (null: none could be given); read from stdin
    in this shape with ``--input-format stream-json``."""

    type: Literal["answer"] = "answer"
    question_id: str
    answer: str | None


class RunEnded(StreamEventBase):
    """The last line: the run's outcome and final answer, as ``agent/run`` returns them."""

    type: Literal["end"] = "end"
    exit_code: int = Field(description="The exit code `agentls run` ends with.")
    result: RunResult

    def to_wire(self) -> dict[str, Any]:
        # The result as ``agent/run`` sends it (its null ``model`` kept).
        return {**super().to_wire(), "result": self.result.to_wire()}


class UserMessageEvent(StreamEventBase):
    """A message of the user to the run while it works (``--input-format stream-json``
    reads it from stdin): ``queue`` reaches the model at its next step, ``steer`` also
    cuts the model call in flight so it reaches the model at once."""

    type: Literal["user_message"] = "user_message"
    text: str = Field(min_length=1)
    mode: Literal["queue", "steer"] = "queue"


#: What ``--input-format stream-json`` reads, one object a line.
StreamInput = Annotated[
    UserMessageEvent | AnswerEvent | ApprovalAnswerEvent, Field(discriminator="type")
]

STREAM_INPUTS: TypeAdapter[StreamInput] = TypeAdapter(StreamInput)

StreamEvent = Annotated[
    RunStarted
    | StatusEvent
    | TextEvent
    | TextRestartEvent
    | StepEvent
    | ToolStartEvent
    | ToolEndEvent
    | PlanEvent
    | UsageEvent
    | ContextEvent
    | InstructionsEvent
    | MessagesDeliveredEvent
    | CommandEvent
    | WorktreeSetupEvent
    | NoticeEvent
    | SubagentStartEvent
    | SubagentEndEvent
    | ApprovalRequestEvent
    | ApprovalAnswerEvent
    | QuestionEvent
    | AnswerEvent
    | RunEnded,
    Field(discriminator="type"),
]

STREAM_EVENTS: TypeAdapter[StreamEvent] = TypeAdapter(StreamEvent)


def _level(level: str) -> Literal["info", "warning", "error"]:
    return level if level in ("info", "warning", "error") else "info"  # type: ignore[return-value]


def stream_event(
    event: events.AgentEvent, *, parent: str | None = None, agent: str | None = None
) -> StreamEventBase | None:
    """The stream object of an engine event; ``parent`` and ``agent`` name the subagent
    it is nested under. None for what the stream does not carry."""
    nested: dict[str, Any] = {"parent_call_id": parent, "agent": agent}
    if isinstance(event, events.SubagentEvent):
        return stream_event(event.event, parent=event.call_id, agent=event.agent)
    if isinstance(event, events.StatusChanged):
        return StatusEvent(state=event.state, detail=event.detail, model=event.model)
    if isinstance(event, events.StreamText):
        return TextEvent(text=event.text)
    if isinstance(event, events.StreamRestarted):
        return TextRestartEvent(reason=event.reason, attempt=event.attempt)
    if isinstance(event, events.StepStarted):
        return None if parent else StepEvent(step=event.step, max_steps=event.max_steps)
    if isinstance(event, events.ToolStarted):
        return ToolStartEvent(
            step=event.step, call_id=event.call_id, tool=event.tool, args=event.args, **nested
        )
    if isinstance(event, events.ToolFinished):
        return ToolEndEvent(
            step=event.step,
            call_id=event.call_id,
            tool=event.tool,
            args=event.args,
            success=event.success,
            summary=event.summary,
            **nested,
        )
    if isinstance(event, events.PlanUpdated):
        steps = [StreamPlanStep(text=s.text, status=_plan_status(s.status)) for s in event.steps]
        return PlanEvent(goal=event.goal, steps=steps, **nested)
    if isinstance(event, events.UsageReported):
        return UsageEvent(
            prompt_tokens=event.prompt_tokens,
            completion_tokens=event.completion_tokens,
            total_tokens=event.total_tokens,
        )
    if isinstance(event, events.ContextMeasured):
        return ContextEvent(step=event.step, used=event.used, limit=event.limit)
    if isinstance(event, events.ContextCompacted):
        return ContextEvent(
            step=event.step,
            compacted=True,
            tokens_before=event.tokens_before,
            tokens_after=event.tokens_after,
        )
    if isinstance(event, events.InstructionsRead):
        return InstructionsEvent(files=event.files, joined=event.joined)
    if isinstance(event, events.MessagesDelivered):
        return MessagesDeliveredEvent(ids=event.ids)
    if isinstance(event, events.CommandStarted):
        return CommandEvent(
            call_id=event.call_id, phase="started", tool=event.tool, command=event.command, **nested
        )
    if isinstance(event, events.CommandOutput):
        return CommandEvent(call_id=event.call_id, phase="output", text=event.text, **nested)
    if isinstance(event, events.CommandEnded):
        return CommandEvent(
            call_id=event.call_id,
            phase="ended",
            exit_code=event.exit_code,
            timed_out=event.timed_out,
            **nested,
        )
    if isinstance(event, events.WorktreeSetup):
        return WorktreeSetupEvent(worktree=event.worktree, phase=event.kind, text=event.text)
    if isinstance(event, events.Notice):
        return NoticeEvent(level=_level(event.level), message=event.message)
    if isinstance(event, events.SubagentStarted):
        return SubagentStartEvent(
            call_id=event.call_id,
            agent=event.agent,
            task=event.task,
            model=event.model,
            background=event.background,
        )
    if isinstance(event, events.SubagentFinished):
        status = event.status if event.status in ("success", "partial") else "failed"
        return SubagentEndEvent(
            call_id=event.call_id,
            agent=event.agent,
            status=status,
            summary=event.summary,
            steps=event.steps,
            total_tokens=event.total_tokens,
        )
    return None


def _plan_status(status: str) -> PlanStepStatus:
    return status if status in ("pending", "in_progress", "done") else "pending"  # type: ignore[return-value]
