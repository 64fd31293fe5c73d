"""The run's events as a stream of typed JSON objects: what ``agentls run --output-format
stream-json`` writes, one object a line, for a program that follows a run without a
terminal, LSP or ACP.

Each line is one of the notifications the language server sends an editor
(``agent/notifications.py``: the same models, shaped from the run's events by the same
``RunNotifications``) with two fields added: its ``type`` (which event) and the stream's
``version``. The few lines no notification carries (the start, each step, usage, the
approvals and questions, the end) are defined here; the end carries the same
``RunResult`` ``agent/run`` and ``--json`` answer with. The published JSON Schema
(``agent/schema/stream.schema.json``) and the reference in docs/headless.md are generated
from these models by ``python -m agentls.cli.stream_schema``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from agentls.agent import events
from agentls.agent import notifications as wire
from agentls.agent.contract import RunResult, Usage
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


class StatusEvent(StreamEventBase, wire.StatusParams):
    """The run changed state: the params of `agent/status`."""

    type: Literal["status"] = "status"


class TextEvent(StreamEventBase, wire.StreamParams):
    """A piece of the model's text as it streams, or (``restart``) the step's text so far
    is void and comes again: the params of `agent/stream`."""

    type: Literal["text"] = "text"


class StepEvent(StreamEventBase):
    """A step (a model call and the tool calls it asks for) begins."""

    type: Literal["step"] = "step"
    run_id: str
    step: int
    max_steps: int


class ToolStartEvent(StreamEventBase, wire.StepParams):
    """A tool call begins: the params of `agent/step` with phase `tool_start`; ``args``
    is what the tool shows of its arguments."""

    type: Literal["tool_start"] = "tool_start"


class ToolEndEvent(StreamEventBase, wire.StepParams):
    """A tool call ended, with whether it succeeded and its result's summary: the params
    of `agent/step` with phase `tool_end`."""

    type: Literal["tool_end"] = "tool_end"


class PlanEvent(StreamEventBase, wire.PlanParams):
    """The agent's plan, whole, each time it changes: the params of `agent/plan`."""

    type: Literal["plan"] = "plan"


class UsageEvent(StreamEventBase, Usage):
    """Tokens of one model call (named as in the run's result)."""

    type: Literal["usage"] = "usage"
    run_id: str


class ContextEvent(StreamEventBase, wire.ContextParams):
    """How full the model's context is as a step's model call starts, or that it was just
    compacted: the params of `agent/context`."""

    type: Literal["context"] = "context"


class InstructionsEvent(StreamEventBase, wire.InstructionsParams):
    """The project's instruction files the model was given: the params of
    `agent/instructions`."""

    type: Literal["instructions"] = "instructions"


class MessagesDeliveredEvent(StreamEventBase, wire.MessageDeliveredParams):
    """Messages sent while the run worked reached the model: the params of
    `agent/messageDelivered`."""

    type: Literal["messages_delivered"] = "messages_delivered"


class CommandEvent(StreamEventBase, wire.CommandParams):
    """A command a tool runs: started, a piece of its output, ended; the params of
    `agent/command`."""

    type: Literal["command"] = "command"


class WorktreeSetupEvent(StreamEventBase):
    """A new worktree's set-up command, its output and how it ended."""

    type: Literal["worktree_setup"] = "worktree_setup"
    run_id: str
    worktree: str
    phase: Literal["started", "output", "ended"]
    text: str


class NoticeEvent(StreamEventBase, wire.NoticeParams):
    """Something the user should know that is not part of the conversation: the params
    of `agent/notice`."""

    type: Literal["notice"] = "notice"


class SubagentStartEvent(StreamEventBase, wire.SubagentParams):
    """A subagent took a task (the ``delegate`` call ``callId``): the params of
    `agent/subagent` with phase `start`."""

    type: Literal["subagent_start"] = "subagent_start"


class SubagentEndEvent(StreamEventBase, wire.SubagentParams):
    """A subagent ended, how, its report's opening and what it spent: the params of
    `agent/subagent` with phase `end`."""

    type: Literal["subagent_end"] = "subagent_end"


class ApprovalRequestEvent(StreamEventBase):
    """The run asks before a tool call; the answer follows as ``approval_answer``."""

    type: Literal["approval_request"] = "approval_request"
    run_id: str
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
    run_id: str | None = Field(None, description="Written always; may be left out on stdin.")
    call_id: str
    kind: ApprovalKind
    message: str = ""
    args: dict[str, Any] | None = Field(None, description="With `modify`: the arguments to run.")


class QuestionEvent(StreamEventBase):
    """The agent asks the user a question (``ask_user``); ``answer`` follows."""

    type: Literal["question"] = "question"
    run_id: str
    question_id: str
    question: str


class AnswerEvent(StreamEventBase):
    """The user's answer to ``questionId`` (null: none could be given); read from stdin
    in this shape with ``--input-format stream-json``."""

    type: Literal["answer"] = "answer"
    run_id: str | None = Field(None, description="Written always; may be left out on stdin.")
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


#: The line of each notification the stream carries (``agent/step`` and ``agent/subagent``
#: are two lines each, by their phase).
_LINES: dict[str, type[StreamEventBase]] = {
    "agent/status": StatusEvent,
    "agent/stream": TextEvent,
    "agent/plan": PlanEvent,
    "agent/context": ContextEvent,
    "agent/instructions": InstructionsEvent,
    "agent/messageDelivered": MessagesDeliveredEvent,
    "agent/command": CommandEvent,
    "agent/notice": NoticeEvent,
}


def stream_line(method: str, params: WireModel) -> StreamEventBase:
    """The stream's line of a notification: its params, ``type`` and ``version`` added."""
    if isinstance(params, wire.StepParams):
        line: type[StreamEventBase] = (
            ToolStartEvent if params.phase == "tool_start" else ToolEndEvent
        )
    elif isinstance(params, wire.SubagentParams):
        line = SubagentStartEvent if params.phase == "start" else SubagentEndEvent
    else:
        line = _LINES[method]
    return line.model_validate(params.model_dump())


class RunLines:
    """Shapes one run's events into stream lines, through the notifications the language
    server sends for them (``RunNotifications``) plus the lines only the stream has."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._notifications = wire.RunNotifications(run_id)

    def text(self, text: str) -> StreamEventBase:
        """A piece of the model's text as it is written (already masked)."""
        return stream_line("agent/stream", self._notifications.text(text))

    def restart(self, event: events.StreamRestarted) -> StreamEventBase:
        return stream_line("agent/stream", self._notifications.restart(event))

    def line(self, event: events.AgentEvent) -> StreamEventBase | None:
        """The line of any event but streamed text; None for what the stream does not
        carry (a subagent's own plan, text and usage: its end line sums them)."""
        shaped = self._notifications.shape(event)
        if shaped is not None:
            return stream_line(*shaped)
        if isinstance(event, events.StepStarted):
            return StepEvent(run_id=self.run_id, step=event.step, max_steps=event.max_steps)
        if isinstance(event, events.UsageReported):
            return UsageEvent(
                run_id=self.run_id,
                prompt_tokens=event.prompt_tokens,
                completion_tokens=event.completion_tokens,
                total_tokens=event.total_tokens,
            )
        if isinstance(event, events.WorktreeSetup):
            return WorktreeSetupEvent(
                run_id=self.run_id, worktree=event.worktree, phase=event.kind, text=event.text
            )
        return None
