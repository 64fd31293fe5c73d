"""Agent events → LSP: ``agent/stream``, ``agent/step``, ``agent/status``, ``agent/plan``,
``agent/subagent`` notifications and the run's ``$/progress`` reports.

A subagent's tool calls are ``agent/step`` notifications with ``parentCallId`` (the run's
``delegate`` call they are nested under) and ``agent``; while it works the progress names
it on the run's step ("Step 3/20 · explore: grep foo").

The loop calls the observer synchronously and it must not block: every event turns
into a notification written at once, except streamed text, which is coalesced (a
flush at most every ``FLUSH_INTERVAL`` seconds, or as soon as ``FLUSH_CHARS``
characters wait) so a model streaming one token at a time does not flood the client.
Any other event flushes pending text first, so the client sees everything in the
order the loop reported it; nothing is dropped. ``seq`` is strictly increasing per run.

When the model's stream is cut and its call retried, text still pending is dropped and
an ``agent/stream`` with ``restart: true`` tells the client how many characters of the
current step's text it already got are void (``discard``); the answer then streams anew.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

# The agent's events by their module: the protocol's types beside them have like names
# (``PlanStep`` is both), and ``events.X`` says which side of the translation a name is.
from lsprotocol import types

from agentls.agent import events
from agentls.agent.contract import Usage
from agentls.agent.secrets import mask_outward, mask_tree, release_point
from agentls.server.progress import RunProgress
from agentls.server.protocol import (
    CommandParams,
    Compaction,
    ContextParams,
    InstructionsParams,
    MessageDeliveredParams,
    NoticeParams,
    PlanParams,
    PlanStep,
    StatusParams,
    StepParams,
    StreamParams,
    SubagentParams,
)
from agentls.server.settings import agentls_capability

log = logging.getLogger(__name__)

FLUSH_INTERVAL = 0.02
FLUSH_CHARS = 512
#: Streamed text held back without whitespace beyond this is sent anyway (masked as it is).
MAX_HELD = 4096

Notify = Callable[[str, dict[str, Any]], None]
#: The tool that hands a task to a subagent: its step is the one a subagent's progress shows.
DELEGATE_TOOL = "delegate"


def step_label(tool: str, args: dict[str, Any]) -> str:
    """``edit_file src/app.py``: the tool and its most telling short argument."""
    for key in ("path", "file", "pattern", "query", "command", "name", "agent"):
        value = args.get(key)
        if isinstance(value, str) and value and "\n" not in value:
            return f"{tool} {value[:60]}"
    return tool


def client_mirrors_commands(caps: types.ClientCapabilities | None) -> bool:
    """Whether the client declared ``experimental.agentls.commandOutput: true``: it shows
    the agent's commands as they run, so their output is streamed to it."""
    return agentls_capability(caps, "commandOutput") is True


def client_shows_notices(caps: types.ClientCapabilities | None) -> bool:
    """Whether the client declared ``experimental.agentls.notices: true``: it shows a run's
    notices beside the run, so they are sent to it as ``agent/notice`` too."""
    return agentls_capability(caps, "notices") is True


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
        summary=event.summary[:500],
        steps=event.steps,
        usage=Usage(
            prompt_tokens=event.prompt_tokens,
            completion_tokens=event.completion_tokens,
            total_tokens=event.total_tokens,
        ),
    )


def _masking(notify: Notify) -> Notify:
    """``notify`` with every string of the params through the outward pass: whatever a
    run reports (a step's arguments, a notice, a command's output) leaves masked."""

    def masked(method: str, params: dict[str, Any]) -> None:
        notify(method, mask_tree(params))

    return masked


class LspRunObserver:
    """The Observer of one run; ``close()`` flushes what is left."""

    def __init__(
        self,
        run_id: str,
        notify: Notify,
        *,
        progress: RunProgress | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        mirror_commands: bool = False,
        show_notices: bool = False,
    ) -> None:
        self.run_id = run_id
        #: The client mirrors commands (``agent/command``): it declared it wants them.
        self._mirror_commands = mirror_commands
        #: The client shows notices beside the run (``agent/notice``): it declared so.
        self._show_notices = show_notices
        self._notify = _masking(notify)
        self._progress = progress
        self._loop = loop or asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._pending: list[str] = []
        self._pending_chars = 0
        self._timer: asyncio.TimerHandle | None = None
        self._seq = 0
        self._step_chars = 0  # streamed text sent since the current step began
        #: The latest context meter, repeated on each agent/step.
        self._meter: events.ContextMeasured | None = None
        #: The run's step of each ``delegate`` call in flight: a subagent's progress
        #: reads as part of it ("Step 3/20 · explore: grep foo").
        self._delegate_steps: dict[str, tuple[int, int]] = {}
        #: ``delegate`` calls whose subagent works (a background one outlives its call).
        self._children: set[str] = set()
        self._closed = False
        self.last_state: str | None = None
        self.usage: dict[str, int] | None = None

    # -- Observer ---------------------------------------------------------------------
    def __call__(self, event: events.AgentEvent) -> None:
        if threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self._handle, event)
            return
        self._handle(event)

    def _handle(self, event: events.AgentEvent) -> None:
        if self._closed:
            return
        try:
            if isinstance(event, events.StreamText):
                self._add_text(event.text)
                return
            if isinstance(event, events.StreamRestarted):
                self._restart(event)
                return
            self.flush()
            self._dispatch(event)
        except Exception:  # an observer never breaks the run
            log.exception("run %s: cannot report %s", self.run_id, type(event).__name__)

    def _dispatch(self, event: events.AgentEvent) -> None:
        run_id = self.run_id
        if isinstance(event, events.StatusChanged):
            self.last_state = event.state.value
            status = StatusParams(
                run_id=run_id, state=event.state, detail=event.detail or None, model=event.model
            )
            self._notify("agent/status", status.to_wire())
        elif isinstance(event, events.SubagentStarted | events.SubagentFinished):
            self._notify("agent/subagent", subagent_params(run_id, event).to_wire())
            if isinstance(event, events.SubagentStarted):
                self._children.add(event.call_id)
            else:
                self._children.discard(event.call_id)
                self._delegate_steps.pop(event.call_id, None)
        elif isinstance(event, events.SubagentEvent):
            self._subagent_event(event)
        elif isinstance(event, events.ToolStarted | events.ToolFinished):
            if isinstance(event, events.ToolStarted) and event.tool == DELEGATE_TOOL:
                self._delegate_steps[event.call_id] = (event.step, event.max_steps)
            elif event.call_id not in self._children:
                self._delegate_steps.pop(event.call_id, None)
            args = event.args  # already what the tool shows of them
            step = StepParams(
                run_id=run_id,
                step=event.step,
                max_steps=event.max_steps,
                phase="tool_start",
                tool=event.tool,
                call_id=event.call_id,
                args=args,
            )
            if self._meter is not None:
                step.context_used, step.context_limit = self._meter.used, self._meter.limit
            if isinstance(event, events.ToolFinished):
                step.phase, step.success = "tool_end", event.success
                step.summary = event.summary[:200]
            self._notify("agent/step", step.to_wire())
            if isinstance(event, events.ToolStarted):
                self._report(event.step, event.max_steps, step_label(event.tool, args))
        elif isinstance(event, events.StepStarted):
            self._step_chars = 0
            self._report(event.step, event.max_steps, "thinking")
        elif isinstance(event, events.PlanUpdated):
            steps = [PlanStep(text=s.text, status=s.status) for s in event.steps]
            plan = PlanParams(run_id=run_id, goal=event.goal, steps=steps)
            self._notify("agent/plan", plan.to_wire())
        elif isinstance(event, events.UsageReported):
            self.usage = {
                "prompt_tokens": event.prompt_tokens,
                "completion_tokens": event.completion_tokens,
                "total_tokens": event.total_tokens,
            }
        elif isinstance(event, events.ContextMeasured):
            self._meter = event
            meter = ContextParams(
                run_id=run_id, step=event.step, used=event.used, limit=event.limit
            )
            self._notify("agent/context", meter.to_wire())
        elif isinstance(event, events.ContextCompacted):
            last = self._meter
            compacted = ContextParams(
                run_id=run_id,
                step=event.step,
                used=event.tokens_after,
                limit=last.limit if last is not None else 0,
                compacted=Compaction(
                    messages_before=event.messages_before,
                    messages_after=event.messages_after,
                    tokens_before=event.tokens_before,
                    tokens_after=event.tokens_after,
                ),
            )
            self._notify("agent/context", compacted.to_wire())
        elif isinstance(event, events.MessagesDelivered):
            delivered = MessageDeliveredParams(run_id=run_id, message_ids=event.ids)
            self._notify("agent/messageDelivered", delivered.to_wire())
        elif isinstance(event, events.CommandStarted | events.CommandOutput | events.CommandEnded):
            if self._mirror_commands:
                self._notify("agent/command", command_params(run_id, event).to_wire())
        elif isinstance(event, events.InstructionsRead):
            read = InstructionsParams(
                run_id=run_id, files=event.files, joined=True if event.joined else None
            )
            self._notify("agent/instructions", read.to_wire())
        elif isinstance(event, events.Notice):
            kind = {"error": 1, "warning": 2}.get(event.level, 3)
            self._notify(
                "window/logMessage", {"type": kind, "message": f"[{run_id}] {event.message}"}
            )
            if self._show_notices:
                level = event.level if event.level in ("error", "warning") else "info"
                notice = NoticeParams(run_id=run_id, level=level, message=event.message)
                self._notify("agent/notice", notice.to_wire())

    def _subagent_event(self, wrapped: events.SubagentEvent) -> None:
        """A subagent's own event: its tool calls as ``agent/step`` nested under the
        ``delegate`` call, its commands as any command, its progress as part of the run's
        step. Its plan stays its own (the run's plan is the one the client shows)."""
        event, agent = wrapped.event, wrapped.agent
        if isinstance(event, events.ToolStarted | events.ToolFinished):
            step = StepParams(
                run_id=self.run_id,
                step=event.step,
                max_steps=event.max_steps,
                phase="tool_start",
                tool=event.tool,
                call_id=event.call_id,
                args=event.args,
                parent_call_id=wrapped.call_id,
                agent=agent,
            )
            if isinstance(event, events.ToolFinished):
                step.phase, step.success = "tool_end", event.success
                step.summary = event.summary[:200]
            self._notify("agent/step", step.to_wire())
            if isinstance(event, events.ToolStarted):
                self._report_child(
                    wrapped.call_id, f"{agent}: {step_label(event.tool, event.args)}"
                )
        elif isinstance(event, events.StepStarted):
            self._report_child(wrapped.call_id, f"{agent}: thinking")
        elif self._mirror_commands and isinstance(
            event, events.CommandStarted | events.CommandOutput | events.CommandEnded
        ):
            self._notify("agent/command", command_params(self.run_id, event).to_wire())

    def _report_child(self, delegate_call: str, label: str) -> None:
        parent = self._delegate_steps.get(delegate_call)
        if parent is not None:
            self._report(parent[0], parent[1], label)

    def _report(self, step: int, max_steps: int, label: str) -> None:
        if self._progress is None:
            return
        percentage = int(100 * max(0, step - 1) / max_steps) if max_steps else None
        self._progress.report(f"Step {step}/{max_steps} · {label}", percentage)

    # -- streamed text ------------------------------------------------------------------
    def _add_text(self, text: str) -> None:
        if not text:
            return
        self._pending.append(text)
        self._pending_chars += len(text)
        if self._pending_chars >= FLUSH_CHARS:
            self.flush(whole=False)
        elif self._timer is None:
            self._timer = self._loop.call_later(FLUSH_INTERVAL, self._timed_flush)

    def _restart(self, event: events.StreamRestarted) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending.clear()
        self._pending_chars = 0
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
        self._notify("agent/stream", restart.to_wire())
        self._step_chars = 0

    def _timed_flush(self) -> None:
        self._timer = None
        try:
            self.flush(whole=False)
        except Exception:
            log.exception("run %s: cannot flush streamed text", self.run_id)

    def flush(self, *, whole: bool = True) -> None:
        """Send the text waiting as ``agent/stream`` notifications. Between two pieces of
        streamed text (``whole=False``) a secret that may go on in the next piece is held
        back (``release_point``), so it is masked whole, and the text goes out in pieces of
        at most ``FLUSH_CHARS`` (the model worker may hand over thousands of characters at
        once), each cut where no secret is; any other event sends all."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        waiting = "".join(self._pending)
        self._pending.clear()
        self._pending_chars = 0
        start, end = 0, len(waiting)
        if not whole and len(waiting) <= MAX_HELD:
            while end - start > FLUSH_CHARS:
                cut = release_point(waiting[start : start + FLUSH_CHARS])
                if not cut:
                    break
                self._send(waiting[start : start + cut])
                start += cut
            end = start + release_point(waiting[start:])
        if end < len(waiting):
            self._pending.append(waiting[end:])
            self._pending_chars = len(waiting) - end
        if end > start:
            self._send(waiting[start:end])

    def _send(self, raw: str) -> None:
        # Masked before it is counted: `discard` counts what the client really received.
        text = mask_outward(raw)
        self._seq += 1
        self._step_chars += len(text)
        stream = StreamParams(run_id=self.run_id, seq=self._seq, text=text)
        self._notify("agent/stream", stream.to_wire())

    def close(self) -> None:
        """Flush and stop: events that arrive later are ignored."""
        if threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self.close)
            return
        self.flush()
        self._closed = True
