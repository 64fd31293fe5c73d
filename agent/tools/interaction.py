"""Tools that talk to the human rather than the workspace: ``update_plan``
records the goal and the checklist; ``ask_user`` pauses the run for an answer.

Both reach the front end through the run's context (``ctx.run``):

- ``observer``: ``update_plan`` reports ``PlanUpdated`` (the CLI prints it, the server
  sends ``agent/plan``); ``session``: the plan is stored as a ``plan`` entry.
- ``approver.ask_user``: the front end's way to ask (the terminal prompt, the server's
  ``agent/askUser``). ``NoTTYError`` (nobody can be asked) or another failure is a
  clear tool error the model can act on.
- ``set_state``: the run is ``awaiting_human`` while asking.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.errors import AgentError, NoTTYError
from agentls.agent.events import PlanStep, PlanUpdated, RunState
from agentls.agent.text import shorten
from agentls.agent.tools.base import Tool, ToolContext, ToolResult

NO_ASKER = (
    "Nobody can be asked here (no interactive terminal, or an editor that does not support "
    "questions). Do not ask again: proceed with the most reasonable assumption and state it, "
    "or finish and put the question in your answer."
)


class PlanStepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, description="What this step does, in a few words.")
    status: Literal["pending", "in_progress", "done"] = Field(
        "pending", description="pending, in_progress (at most one) or done."
    )


class UpdatePlanArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goal: str = Field(min_length=1, description="The overall goal of the task.")
    steps: list[PlanStepArgs] = Field(
        default_factory=list, description="The whole checklist, in order (it replaces the last)."
    )


class UpdatePlanTool(Tool[UpdatePlanArgs], name="update_plan"):
    """Record the goal and the step-by-step plan of a multi-step task, and update the checklist as
    steps are done. Send the whole list each time. The user sees it."""

    async def run(self, args: UpdatePlanArgs, ctx: ToolContext) -> ToolResult:
        steps = [PlanStep(text=s.text, status=s.status) for s in args.steps]
        ctx.run.observer(PlanUpdated(goal=args.goal, steps=steps))
        recorder = ctx.run.session
        if recorder is not None:
            await recorder.plan(args.goal, [{"text": s.text, "status": s.status} for s in steps])
        done = sum(1 for s in steps if s.status == "done")
        current = next((s.text for s in steps if s.status == "in_progress"), None)
        summary = f"Plan updated: {done}/{len(steps)} steps done."
        if current:
            summary += f" In progress: {current}."
        return ToolResult.ok(summary)

    def summarize_args(self, args: dict[str, Any]) -> dict[str, Any]:
        goal = args.get("goal")
        short: dict[str, Any] = {"steps": len(args.get("steps") or [])}
        if isinstance(goal, str):
            short["goal"] = shorten(goal, 80)
        return short


class AskUserArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="One clear question for the user.")


class AskUserTool(Tool[AskUserArgs], name="ask_user"):
    """Ask the user a question and wait for the answer. Only for information you cannot find in the
    workspace and cannot reasonably assume; not for permission to run tools."""

    async def run(self, args: AskUserArgs, ctx: ToolContext) -> ToolResult:
        ctx.run.set_state(RunState.AWAITING_HUMAN)
        try:
            answer = await ctx.run.approver.ask_user(args.question)
        except NoTTYError:
            return ToolResult.fail(NO_ASKER)
        except AgentError as exc:
            return ToolResult.fail(f"The question could not be asked: {exc}")
        finally:
            ctx.run.set_state(RunState.TOOL_RUNNING)
        if answer is None or not answer.strip():
            return ToolResult.ok(
                "The user gave no answer. Proceed with the most reasonable assumption and say so."
            )
        return ToolResult.ok(f"The user answered: {answer.strip()}")


__all__ = ["AskUserTool", "UpdatePlanTool"]
