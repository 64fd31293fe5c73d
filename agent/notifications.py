"""What a run tells a client as it works: one model per notification, and the one
translation of the engine's events into them.

The language server sends each as an ``agent/*`` notification (``agent/status``,
``agent/step``...); ``agentls run --output-format stream-json`` writes the same models as
lines of its event stream (``agent/event_stream.py`` adds only each line's ``type`` and
``version``). Both front ends shape events through ``RunNotifications``, so a field added
here reaches the editor and the stream alike and the two cannot drift.

Masking is the front end's: what leaves the process goes through the outward pass there.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

from agentls.agent import events
from agentls.agent.contract import PlanStepStatus, RunState, Usage
from agentls.agent.wire_model import WireModel

StepPhase = TypeAliasType("StepPhase", Literal["tool_start", "tool_end"])
SubagentPhase = TypeAliasType("SubagentPhase", Literal["start", "end"])
SubagentStatus = TypeAliasType("SubagentStatus", Literal["success", "partial", "failed"])

#: The longest ``summary`` a step or a subagent's end carries.
STEP_SUMMARY_CHARS = 200
SUBAGENT_SUMMARY_CHARS = 500


class MessageDeliveredParams(WireModel):
    """``agent/messageDelivered``: messages sent with ``agent/message`` reached the model."""

    run_id: str
    message_ids: list[str]


class CommandParams(WireModel):
    """``agent/command``: a command the agent runs, as it runs, for a client that mirrors
    it (one that declares ``experimental.agentls.commandOutput``). ``started`` names the
    command, ``output`` pieces come in order, ``ended`` gives the exit code. Secrets are
    masked in ``command`` and ``text``."""

    run_id: str
    call_id: str = Field(description="The tool call, as in `agent/step`.")
    event: Literal["started", "output", "ended"]
    tool: str | None = Field(None, description="`started`: the tool that runs it.")
    command: str | None = Field(None, description="`started`: what runs, as approved.")
    text: str | None = Field(None, description="`output`: stdout and stderr interleaved.")
    exit_code: int | None = Field(
        None, description="`ended`: the exit code; absent when the command was stopped."
    )
    timed_out: bool | None = Field(None, description="`ended`: stopped by its time limit.")


class NoticeParams(WireModel):
    """``agent/notice``: what a run tells the user besides its work (settings of an
    untrusted folder that were ignored, no sandbox, an MCP server that did not start), for
    a client that shows it beside the run (one that declares
    ``experimental.agentls.notices``). Every client also gets it as ``window/logMessage``."""

    run_id: str
    level: Literal["error", "warning", "info"]
    message: str


class StatusParams(WireModel):
    """``agent/status``: the run changed state."""

    run_id: str
    state: RunState
    detail: str | None = Field(None, description="Why the run failed, aborted or ended partial.")
    model: str | None = Field(
        None,
        description="With `preparing`: the model that answers the steps starting now (in "
        "`mixed` mode the planner's, then the builder's).",
    )


class StreamParams(WireModel):
    """``agent/stream``: the model's text as it is written; concatenated in ``seq``
    order it is exactly the model's text."""

    run_id: str
    seq: int = Field(ge=1, description="1, 2, 3... per run.")
    text: str
    restart: bool | None = Field(
        default=None,
        description="The model's stream was cut and its call starts again: "
        "this step's text so far is void.",
    )
    discard: int | None = Field(
        default=None, ge=0, description="How many characters of this step's text are void."
    )
    reason: str | None = Field(default=None, description="Why the stream restarts.")
    attempt: int | None = Field(default=None, ge=1, description="The attempt that now starts.")


class StepParams(WireModel):
    """``agent/step``: a tool call starts or ends."""

    run_id: str
    step: int
    max_steps: int
    phase: StepPhase
    tool: str
    call_id: str
    args: dict[str, Any] = Field(
        description="Scalars and short one-line strings only, never file contents."
    )
    success: bool | None = Field(None, description="With `tool_end`.")
    summary: str | None = Field(None, max_length=200, description="With `tool_end`.")
    context_used: int | None = Field(
        None, description="The context meter as this step's model call started: tokens used."
    )
    context_limit: int | None = Field(
        None, description="The context budget those tokens fill (`context.max_context_tokens`)."
    )
    parent_call_id: str | None = Field(
        None,
        description="A subagent's tool call: the `delegate` call of the run it is nested "
        "under (`step`/`maxSteps` are then the subagent's own).",
    )
    agent: str | None = Field(None, description="With `parentCallId`: the subagent's name.")


class SubagentParams(WireModel):
    """``agent/subagent``: a subagent the run handed a task to (its ``delegate`` tool call
    ``callId``) starts or ends; its tool calls come as ``agent/step`` with
    ``parentCallId``."""

    run_id: str
    call_id: str = Field(description="The run's `delegate` tool call the subagent works under.")
    agent: str
    phase: SubagentPhase
    task: str | None = Field(None, description="With `start`: the task it was given.")
    model: str | None = Field(None, description="With `start`: the model that answers it.")
    background: bool | None = Field(
        None, description="With `start`: true when the run goes on without waiting for it."
    )
    status: SubagentStatus | None = Field(None, description="With `end`.")
    summary: str | None = Field(
        None, max_length=500, description="With `end`: the opening of its report."
    )
    steps: int | None = Field(None, description="With `end`: the steps it took.")
    usage: Usage | None = Field(None, description="With `end`: the tokens it used.")


class Compaction(WireModel):
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int


class ContextParams(WireModel):
    """``agent/context``: how full the model's context is, as each step's model call
    starts; with ``compacted`` when the older steps were just compacted."""

    run_id: str
    step: int
    used: int = Field(description="Tokens of the conversation the model is sent.")
    limit: int = Field(description="The budget compaction keeps to (`context.max_context_tokens`).")
    compacted: Compaction | None = None


class PlanStep(WireModel):
    text: str
    status: PlanStepStatus


class PlanParams(WireModel):
    """``agent/plan``: the agent's plan, whole, each time it changes."""

    run_id: str
    goal: str
    steps: list[PlanStep]


class InstructionsParams(WireModel):
    """``agent/instructions``: the instruction files the model was given (AGENTS.md...)."""

    run_id: str
    files: list[str] = Field(description="Workspace-relative paths, in the order read.")
    joined: bool | None = Field(
        None,
        description="True: these joined during the run, as it reached their folders "
        "(the others were given at its start).",
    )


#: A notification: its method (``agent/step``) and its params.
Notification = tuple[str, WireModel]


class RunNotifications:
    """Shapes one run's events into notifications, in the order they come.

    It keeps the little a notification needs from earlier events: the context meter a
    step repeats, the ``seq`` of streamed text and how much of the current step's text
    was sent (what a restart voids). The front end decides which notifications its client
    gets (commands and notices are sent only to a client that asked for them) and when
    streamed text is sent (the server coalesces it): it hands over the text it sends,
    already masked, so ``discard`` counts what the client received.
    """

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._meter: events.ContextMeasured | None = None
        self._seq = 0
        self._step_chars = 0

    def text(self, text: str) -> StreamParams:
        """``agent/stream`` for a piece of the model's text as the client gets it."""
        self._seq += 1
        self._step_chars += len(text)
        return StreamParams(run_id=self.run_id, seq=self._seq, text=text)

    def restart(self, event: events.StreamRestarted) -> StreamParams:
        """``agent/stream`` voiding the text of the step so far: the call starts again."""
        self._seq += 1
        restart = StreamParams(
            run_id=self.run_id,
            seq=self._seq,
            text="",
            restart=True,
            discard=self._step_chars,
            reason=event.reason,
            attempt=event.attempt,
        )
        self._step_chars = 0
        return restart

    def shape(self, event: events.AgentEvent) -> Notification | None:
        """The notification of any event but streamed text; None for those no
        notification carries (a step starting, usage: the run's result sums it)."""
        run_id = self.run_id
        if isinstance(event, events.StepStarted):
            self._step_chars = 0
            return None
        if isinstance(event, events.StatusChanged):
            return "agent/status", StatusParams(
                run_id=run_id, state=event.state, detail=event.detail or None, model=event.model
            )
        if isinstance(event, events.ToolStarted | events.ToolFinished):
            step = step_params(run_id, event)
            if self._meter is not None:
                step.context_used, step.context_limit = self._meter.used, self._meter.limit
            return "agent/step", step
        if isinstance(event, events.SubagentEvent):
            return self._nested(event)
        if isinstance(event, events.SubagentStarted | events.SubagentFinished):
            return "agent/subagent", subagent_params(run_id, event)
        if isinstance(event, events.PlanUpdated):
            steps = [PlanStep(text=s.text, status=_plan_status(s.status)) for s in event.steps]
            return "agent/plan", PlanParams(run_id=run_id, goal=event.goal, steps=steps)
        if isinstance(event, events.ContextMeasured):
            self._meter = event
            return "agent/context", ContextParams(
                run_id=run_id, step=event.step, used=event.used, limit=event.limit
            )
        if isinstance(event, events.ContextCompacted):
            return "agent/context", ContextParams(
                run_id=run_id,
                step=event.step,
                used=event.tokens_after,
                limit=self._meter.limit if self._meter is not None else 0,
                compacted=Compaction(
                    messages_before=event.messages_before,
                    messages_after=event.messages_after,
                    tokens_before=event.tokens_before,
                    tokens_after=event.tokens_after,
                ),
            )
        if isinstance(event, events.MessagesDelivered):
            return "agent/messageDelivered", MessageDeliveredParams(
                run_id=run_id, message_ids=event.ids
            )
        if isinstance(event, events.CommandStarted | events.CommandOutput | events.CommandEnded):
            return "agent/command", command_params(run_id, event)
        if isinstance(event, events.InstructionsRead):
            return "agent/instructions", InstructionsParams(
                run_id=run_id, files=event.files, joined=True if event.joined else None
            )
        if isinstance(event, events.Notice):
            level = event.level if event.level in ("error", "warning") else "info"
            return "agent/notice", NoticeParams(run_id=run_id, level=level, message=event.message)
        return None

    def _nested(self, wrapped: events.SubagentEvent) -> Notification | None:
        """A subagent's own event: its tool calls nested under the ``delegate`` call and
        its commands as any command. Its plan, text and meter stay its own (the run's
        are the ones a client shows)."""
        event = wrapped.event
        if isinstance(event, events.ToolStarted | events.ToolFinished):
            step = step_params(self.run_id, event, parent=wrapped.call_id, agent=wrapped.agent)
            return "agent/step", step
        if isinstance(event, events.CommandStarted | events.CommandOutput | events.CommandEnded):
            return "agent/command", command_params(self.run_id, event)
        return None


def step_params(
    run_id: str,
    event: events.ToolStarted | events.ToolFinished,
    *,
    parent: str | None = None,
    agent: str | None = None,
) -> StepParams:
    step = StepParams(
        run_id=run_id,
        step=event.step,
        max_steps=event.max_steps,
        phase="tool_start",
        tool=event.tool,
        call_id=event.call_id,
        args=event.args,  # already what the tool shows of them
        parent_call_id=parent,
        agent=agent,
    )
    if isinstance(event, events.ToolFinished):
        step.phase, step.success = "tool_end", event.success
        step.summary = event.summary[:STEP_SUMMARY_CHARS]
    return step


def command_params(
    run_id: str, event: events.CommandStarted | events.CommandOutput | events.CommandEnded
) -> CommandParams:
    if isinstance(event, events.CommandStarted):
        return CommandParams(
            run_id=run_id,
            call_id=event.call_id,
            event="started",
            tool=event.tool,
            command=event.command,
        )
    if isinstance(event, events.CommandOutput):
        return CommandParams(run_id=run_id, call_id=event.call_id, event="output", text=event.text)
    return CommandParams(
        run_id=run_id,
        call_id=event.call_id,
        event="ended",
        exit_code=event.exit_code,
        timed_out=event.timed_out or None,
    )


def subagent_params(
    run_id: str, event: events.SubagentStarted | events.SubagentFinished
) -> SubagentParams:
    if isinstance(event, events.SubagentStarted):
        return SubagentParams(
            run_id=run_id,
            call_id=event.call_id,
            agent=event.agent,
            phase="start",
            task=event.task,
            model=event.model or None,
            background=event.background,
        )
    status = event.status if event.status in ("success", "partial") else "failed"
    return SubagentParams(
        run_id=run_id,
        call_id=event.call_id,
        agent=event.agent,
        phase="end",
        status=status,
        summary=event.summary[:SUBAGENT_SUMMARY_CHARS],
        steps=event.steps,
        usage=Usage(
            prompt_tokens=event.prompt_tokens,
            completion_tokens=event.completion_tokens,
            total_tokens=event.total_tokens,
        ),
    )


def _plan_status(status: str) -> PlanStepStatus:
    return status if status in ("pending", "in_progress", "done") else "pending"  # type: ignore[return-value]
