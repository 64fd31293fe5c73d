"""Who decides whether a tool call may run, and how a human is asked.

One function, ``decide``, makes the policy decision for every tool call (as codex
does): ``skip`` (run it), ``needs_approval`` (ask a human first) or ``forbidden``.
An ``Approver`` is how a front end asks: a terminal y/n, an LSP
``window/showMessageRequest``. File edits are the exception: their confirmation
travels with the edit itself (see ``FileAccess.apply(confirm=True)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agentls.agent.config import AgentConfig
from agentls.agent.tools.base import Tool

DecisionKind = Literal["skip", "needs_approval", "forbidden"]


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    reason: str = ""


def decide(
    tool: Tool,
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


class Approver(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer: ...


class DenyingApprover:
    """For front ends that cannot ask anybody: every request is refused, with why."""

    def __init__(self, why: str) -> None:
        self.why = why

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer("deny", message=self.why)
