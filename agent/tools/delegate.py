"""The ``delegate`` tool: the model hands a task to another agent."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.config.agents import MIXED, AgentRegistry
from agentls.agent.config.models import AppConfig
from agentls.agent.text import shorten
from agentls.agent.tools.base import Tool, ToolContext, ToolResult

UNAVAILABLE = "Subagents are not available in this run; do the task yourself."


class DelegateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str = Field(min_length=1, description="The agent to hand the task to (listed above).")
    task: str = Field(
        min_length=1,
        description="The whole task, self-contained: the agent sees nothing of this "
        "conversation, only this text. Say what to find or do and what to report.",
    )
    wait: bool = Field(
        True,
        description="true: wait for the agent's report. false: go on meanwhile; its report "
        "is given to you when it ends.",
    )


class DelegateTool(Tool[DelegateArgs], name="delegate"):
    """Hand a task to another agent, which works in a fresh conversation of its own (its own
    prompt and tools, nothing of this conversation) and gives back only its final report.
    Use it to keep your context small: a broad search, reading many files, a review. Several
    read-only agents may work at once (several delegate calls in one step); agents that edit
    take turns."""

    def __init__(self, config: AppConfig | None = None) -> None:
        agents = AgentRegistry(config or AppConfig()).list()
        listed = [
            f"- {info.name}: {info.description}" + (" (read-only)" if info.read_only else "")
            for info in agents
            if info.name != MIXED
        ]
        self._description = self.description + " Agents:\n" + "\n".join(listed)

    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        schema["function"]["description"] = self._description
        return schema

    async def run(self, args: DelegateArgs, ctx: ToolContext) -> ToolResult:
        delegation = ctx.run.delegation
        if delegation is None:
            return ToolResult.fail(UNAVAILABLE)
        return await delegation.delegate(args.agent, args.task, wait=args.wait, call=ctx)

    def summarize_args(self, args: dict[str, Any]) -> dict[str, Any]:
        shown: dict[str, Any] = {}
        for key in ("agent", "wait"):
            if isinstance(args.get(key), str | bool):
                shown[key] = args[key]
        task = args.get("task")
        if isinstance(task, str):
            shown["task"] = shorten(" ".join(task.split()), 120)
        return shown
