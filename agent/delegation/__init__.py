"""Subagents: the model hands a task to another agent (the ``delegate`` tool), which works
in a conversation of its own and hands back only its final report."""

from agentls.agent.delegation.children import ChildLoops, ChildRun, Delegation

__all__ = ["ChildLoops", "ChildRun", "Delegation"]
