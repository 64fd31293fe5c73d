"""The children of one run: starting them, taking turns, and their reports.

A ``Delegation`` belongs to one run. ``delegate`` resolves the agent the model named,
bounds it by the parent's (``child_agent``), and runs a child loop through ``ChildLoops``
(the run composes the loop: the model, the context, the tools). Read-only children run at
once, up to ``subagents.max_parallel``; children that can edit take turns, so that two
never change the workspace under each other. A child the parent does not wait for runs in
the background: its report waits in ``take_reports`` for the parent's next model call, and
the parent's loop does not end while one still works (``wait_background``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agentls.agent.config.agents import MIXED, AgentRegistry
from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.delegation.child_agent import bounded_child, is_read_only
from agentls.agent.delegation.nesting import ChildObserver, NamedApprover
from agentls.agent.errors import AgentNotFoundError
from agentls.agent.events import Observer, SubagentFinished, SubagentStarted
from agentls.agent.llm.models import Usage
from agentls.agent.policy.approval import Approver
from agentls.agent.run_record import RunRecord
from agentls.agent.text import shorten
from agentls.agent.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from agentls.agent.sessions.recorder import SessionRecorder

log = logging.getLogger(__name__)

CUT_MARKER = "\n[… the report was cut here: it was longer than {limit} characters]"


@dataclass(frozen=True)
class ChildRun:
    """One child loop to run: who it is, what it may do, what it was asked, and where its
    events and questions go."""

    call_id: str
    name: str
    agent: AgentConfig
    task: str
    observer: ChildObserver
    approver: Approver


class ChildLoops(Protocol):
    """How the run composes a child's loop."""

    def model_for(self, agent: AgentConfig) -> str:
        """The model a child of ``agent`` answers on."""
        ...

    async def run(self, child: ChildRun) -> RunRecord:
        """The child's loop to its end (cancellation propagates)."""
        ...


class Delegation:
    """The subagents of one run."""

    def __init__(
        self,
        loops: ChildLoops,
        *,
        config: AppConfig,
        known_tools: Sequence[str],
        session: SessionRecorder | None = None,
    ) -> None:
        self._loops = loops
        self._config = config
        self._known = list(known_tools)
        self._session = session
        self._at_once = asyncio.Semaphore(config.subagents.max_parallel)
        self._one_editor = asyncio.Lock()
        self._background: dict[str, asyncio.Task[ToolResult]] = {}
        self._reports: list[str] = []
        #: What the children spent, for the run's total.
        self.usage = Usage()

    async def delegate(self, name: str, task: str, *, wait: bool, call: ToolContext) -> ToolResult:
        """Run ``task`` in a child of agent ``name``: its report (``wait``), or word that it
        started (its report comes with ``take_reports``)."""
        found = self._agent(name, call.agent)
        if isinstance(found, ToolResult):
            return found
        run = call.run
        observer = ChildObserver(
            run.observer, call.call_id, name, parent_state=run.set_state if wait else None
        )
        child = ChildRun(
            call.call_id,
            name,
            found,
            task,
            observer,
            NamedApprover(run.approver, call.call_id, name),
        )
        model = self._loops.model_for(found)
        run.observer(SubagentStarted(call.call_id, name, task, model, background=not wait))
        if wait:
            return await self._run(child, run.observer)
        job = asyncio.create_task(self._run(child, run.observer))
        self._background[call.call_id] = job
        job.add_done_callback(lambda done: self._arrived(call.call_id, name, done))
        return ToolResult.ok(
            f"Started subagent {name} in the background (call {call.call_id}). Go on with other "
            "work; its report will be given to you when it ends."
        )

    def _agent(self, name: str, parent: AgentConfig | None) -> AgentConfig | ToolResult:
        registry = AgentRegistry(self._config)
        if name == MIXED:
            return ToolResult.fail(
                f"{MIXED} is a mode, not an agent a task can be handed to; pick one of: "
                + ", ".join(n for n in registry.names() if n != MIXED)
            )
        try:
            defined = registry.get(name)
        except AgentNotFoundError as exc:
            return ToolResult.fail(f"Cannot delegate: {exc}")
        return bounded_child(defined, parent or AgentConfig(system_prompt=""), self._known)

    async def _run(self, child: ChildRun, observer: Observer) -> ToolResult:
        # A child in a worktree of its own edits nothing the others see.
        apart = is_read_only(child.agent) or child.agent.isolation == "worktree"
        turn = self._at_once if apart else self._one_editor
        record: RunRecord | None = None
        try:
            async with turn:
                record = await self._loops.run(child)
        except asyncio.CancelledError:
            steps = child.observer.steps
            observer(SubagentFinished(child.call_id, child.name, "partial", "stopped", steps))
            raise
        except Exception as exc:  # a child's failure is the parent's tool error, not a crash
            log.exception("subagent %s failed", child.name)
            record = RunRecord(messages=[])
            record.finish("failed", f"{type(exc).__name__}: {exc}")
        return await self._finished(child, record, observer)

    async def _finished(self, child: ChildRun, record: RunRecord, observer: Observer) -> ToolResult:
        self.usage = self.usage.add(record.usage)
        report = (record.final_output or "").strip() or "(the agent gave no report)"
        limit = self._config.subagents.max_report_chars
        if len(report) > limit:
            marker = CUT_MARKER.format(limit=limit)
            report = report[: limit - len(marker)] + marker
        usage, steps = record.usage, child.observer.steps
        first = report.splitlines()[0] if report else ""
        observer(
            SubagentFinished(
                child.call_id,
                child.name,
                record.status or "failed",
                shorten(first, 200),
                steps,
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.total_tokens,
            )
        )
        if self._session is not None:
            await self._session.subagent(
                child.call_id,
                child.name,
                child.task,
                status=record.status or "failed",
                steps=steps,
                usage=usage,
                report=report,
                model=record.model,
            )
        header = (
            f"Report of subagent {child.name} ({record.status}; {steps} step(s); "
            f"{usage.total_tokens} tokens):"
        )
        if record.status == "failed":
            return ToolResult.fail(f"Subagent {child.name} failed: {report}")
        return ToolResult.ok(f"{header}\n{report}")

    def _arrived(self, call_id: str, name: str, job: asyncio.Task[ToolResult]) -> None:
        self._background.pop(call_id, None)
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            self._reports.append(f"[Subagent {name} (call {call_id}) failed: {error}]")
            return
        result = job.result()
        self._reports.append(f"[Background subagent, call {call_id}]\n{result.output}")

    def take_reports(self) -> list[str]:
        """The reports of background children that ended since the last call."""
        reports, self._reports = self._reports, []
        return reports

    @property
    def working(self) -> bool:
        """A background child still works."""
        return bool(self._background)

    async def wait_background(self) -> bool:
        """Until every background child has ended; whether a report now waits."""
        while self._background:
            await asyncio.wait(list(self._background.values()))
            await asyncio.sleep(0)  # the done callbacks file the reports
        return bool(self._reports)

    async def aclose(self) -> None:
        """Stops the background children still working (the run has ended)."""
        jobs = list(self._background.values())
        for job in jobs:
            job.cancel()
        for job in jobs:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await job
        self._background.clear()
