"""A child's events and questions, seen as part of the parent's run.

The child's loop reports to a ``ChildObserver``: what it does arrives nested under the
parent's ``delegate`` call (``SubagentEvent``), its tool calls' ids made unique in the run
(two children, or a child and its parent, may be given the same id by the model). Its
questions go to the run's human through a ``NamedApprover``, which puts the child's name
on each of them and the same unique ids.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentls.agent.events import (
    AgentEvent,
    CommandEnded,
    CommandOutput,
    CommandStarted,
    Notice,
    Observer,
    PlanUpdated,
    RunState,
    StatusChanged,
    StepStarted,
    SubagentEvent,
    ToolFinished,
    ToolStarted,
)
from agentls.agent.policy.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    EditRequest,
    EditReview,
)

if TYPE_CHECKING:
    from agentls.agent.policy.program_approval import ProgramToApprove
    from agentls.agent.workspace import EditOutcome, FileAccess

_NESTED = (
    StepStarted,
    ToolStarted,
    ToolFinished,
    PlanUpdated,
    CommandStarted,
    CommandOutput,
    CommandEnded,
)


#: How a tool's plain-words explanation of a call starts (``Tool.describe_for_approval``).
AGENT_WANTS = "The agent wants"


def nested_id(parent_call_id: str, call_id: str) -> str:
    """A child's tool call id, unique in the run."""
    return f"{parent_call_id}/{call_id}"


class ChildObserver:
    """The Observer of one child's loop: nests its steps under the parent's call, passes
    its notices on with its name, and (when the parent waits for it) shows the run as
    waiting for the human while the child asks something."""

    def __init__(
        self,
        parent: Observer,
        call_id: str,
        agent: str,
        *,
        parent_state: Callable[[RunState], None] | None = None,
    ) -> None:
        self._parent = parent
        self._call_id = call_id
        self._agent = agent
        self._parent_state = parent_state
        self._asking = False
        #: The child's model turns so far.
        self.steps = 0

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, StepStarted):
            self.steps += 1
        if isinstance(event, _NESTED):
            self._parent(SubagentEvent(self._call_id, self._agent, self._unique(event)))
        elif isinstance(event, Notice):
            self._parent(Notice(event.level, f"[{self._agent}] {event.message}"))
        elif isinstance(event, StatusChanged):
            self._follow(event.state)
        # The child's text, usage and context meter stay its own: the parent's run reports
        # the child's totals when it ends (SubagentFinished).

    def _unique(self, event: AgentEvent) -> AgentEvent:
        if isinstance(event, ToolStarted | ToolFinished | CommandStarted):
            return dataclasses.replace(event, call_id=nested_id(self._call_id, event.call_id))
        if isinstance(event, CommandOutput | CommandEnded):
            return dataclasses.replace(event, call_id=nested_id(self._call_id, event.call_id))
        return event

    def _follow(self, state: RunState) -> None:
        if self._parent_state is None:
            return
        if state == RunState.AWAITING_HUMAN:
            self._asking = True
            self._parent_state(RunState.AWAITING_HUMAN)
        elif self._asking:
            self._asking = False
            self._parent_state(RunState.TOOL_RUNNING)


class NamedApprover:
    """The run's Approver for one child: every question names the child, and its calls'
    ids are the unique ones its events carry."""

    def __init__(self, inner: Approver, call_id: str, agent: str) -> None:
        self._inner = inner
        self._call_id = call_id
        self._agent = agent

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        explanation = request.explanation
        if explanation.startswith(AGENT_WANTS):
            explanation = f"The subagent {self._agent} wants" + explanation[len(AGENT_WANTS) :]
        named = dataclasses.replace(
            request,
            call_id=nested_id(self._call_id, request.call_id),
            subagent=self._agent,
            explanation=explanation,
        )
        return await self._inner.ask(named)

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        named = dataclasses.replace(
            request, call_id=nested_id(self._call_id, request.call_id), subagent=self._agent
        )
        return await self._inner.confirm_edit(named, files)

    async def ask_user(self, question: str) -> str | None:
        return await self._inner.ask_user(f"[{self._agent}] {question}")

    async def edit_reviewed(self, review: EditReview) -> None:
        await self._inner.edit_reviewed(review)

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        return await self._inner.approve_program(program)
