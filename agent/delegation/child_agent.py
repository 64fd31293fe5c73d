"""What a subagent may do: its own definition, never more than the agent that started it.

A child's tools are its agent's tools that the parent has too (``delegate`` never: a
child does not start children of its own). Its confirm mode and sandbox are the stricter
of the two, except that a parent the user runs in ``yolo`` passes that on: the user chose
not to be asked in this run, and a child asking anyway would be a surprise.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentls.agent.config.agents import READ_ONLY_TOOLS
from agentls.agent.config.models import AgentConfig, ConfirmMode

DELEGATE = "delegate"
#: An agent left with no tool at all (``allowed_tools`` empty would mean every tool).
NO_TOOLS = "(none)"

_CONFIRM_RANK = {"yolo": 0, "confirm-sensitive": 1, "confirm-all": 2}
_SANDBOX_RANK = {"off": 0, "workspace-write": 1, "read-only": 2}


def child_tools(child: AgentConfig, parent: AgentConfig, known: Sequence[str]) -> list[str]:
    """The tools a child of ``parent`` defined as ``child`` may call, among ``known``."""
    mine = set(child.allowed_tools) if child.allowed_tools else set(known)
    theirs = set(parent.allowed_tools) if parent.allowed_tools else set(known)
    return [name for name in known if name in mine and name in theirs and name != DELEGATE]


def bounded_child(child: AgentConfig, parent: AgentConfig, known: Sequence[str]) -> AgentConfig:
    """``child`` narrowed to what ``parent`` may do."""
    tools = child_tools(child, parent, known)
    confirm: ConfirmMode = parent.confirm_mode
    if confirm != "yolo" and _CONFIRM_RANK[child.confirm_mode] > _CONFIRM_RANK[confirm]:
        confirm = child.confirm_mode
    sandbox = child.sandbox
    if _SANDBOX_RANK[parent.sandbox] > _SANDBOX_RANK[sandbox]:
        sandbox = parent.sandbox
    return child.model_copy(
        update={
            "allowed_tools": tools or [NO_TOOLS],
            "confirm_mode": confirm,
            "sandbox": sandbox,
            "network": child.network and parent.network,
        }
    )


def is_read_only(agent: AgentConfig) -> bool:
    """Whether ``agent`` (already bounded) can change nothing: such children may run at
    once; children that edit take turns."""
    tools = [t for t in agent.allowed_tools if t != NO_TOOLS]
    return set(tools) <= set(READ_ONLY_TOOLS)
