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
from agentls.agent.notifications import RunNotifications
from agentls.agent.secrets import mask_outward, mask_tree, release_point
from agentls.server.progress import RunProgress
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
        #: The run's events as notifications (the event stream shapes them alike).
        self._shaper = RunNotifications(run_id)
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
        shaped = self._shaper.shape(event)
        if isinstance(event, events.UsageReported):
            self.usage = {
                "prompt_tokens": event.prompt_tokens,
                "completion_tokens": event.completion_tokens,
                "total_tokens": event.total_tokens,
            }
        if isinstance(event, events.Notice):
            kind = {"error": 1, "warning": 2}.get(event.level, 3)
            self._notify(
                "window/logMessage", {"type": kind, "message": f"[{self.run_id}] {event.message}"}
            )
        if shaped is not None:
            method, params = shaped
            if (method != "agent/command" or self._mirror_commands) and (
                method != "agent/notice" or self._show_notices
            ):
                self._notify(method, params.to_wire())
        self._track(event)

    def _track(self, event: events.AgentEvent) -> None:
        """What the run's progress shows: the state, the step and its tool, a subagent's
        work as part of the run's ``delegate`` step ("Step 3/20 · explore: grep foo")."""
        if isinstance(event, events.StatusChanged):
            self.last_state = event.state.value
        elif isinstance(event, events.SubagentStarted):
            self._children.add(event.call_id)
        elif isinstance(event, events.SubagentFinished):
            self._children.discard(event.call_id)
            self._delegate_steps.pop(event.call_id, None)
        elif isinstance(event, events.ToolStarted | events.ToolFinished):
            if isinstance(event, events.ToolStarted) and event.tool == DELEGATE_TOOL:
                self._delegate_steps[event.call_id] = (event.step, event.max_steps)
            elif event.call_id not in self._children:
                self._delegate_steps.pop(event.call_id, None)
            if isinstance(event, events.ToolStarted):
                self._report(event.step, event.max_steps, step_label(event.tool, event.args))
        elif isinstance(event, events.StepStarted):
            self._report(event.step, event.max_steps, "thinking")
        elif isinstance(event, events.SubagentEvent):
            child, agent = event.event, event.agent
            if isinstance(child, events.ToolStarted):
                label = step_label(child.tool, child.args)
                self._report_child(event.call_id, f"{agent}: {label}")
            elif isinstance(child, events.StepStarted):
                self._report_child(event.call_id, f"{agent}: thinking")

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
        self._notify("agent/stream", self._shaper.restart(event).to_wire())

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
        self._notify("agent/stream", self._shaper.text(text).to_wire())

    def close(self) -> None:
        """Flush and stop: events that arrive later are ignored."""
        if threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self.close)
            return
        self.flush()
        self._closed = True
