"""A stored session told again as ``session/update`` notifications (``session/load``)."""

from __future__ import annotations

from collections.abc import Iterable

from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.updates import PlanStatus, Update, plan_status, tool_kind, tool_title
from agentls.agent.sessions.entries import (
    AssistantMessage,
    Entry,
    ModelChoiceEntry,
    PlanEntry,
    RunStartEntry,
    SubagentEntry,
    ToolCallEntry,
    ToolResultEntry,
)
from agentls.agent.text import shorten

#: A replayed tool result is a reminder, not the whole output.
MAX_RESULT_CHARS = 2000


def replay(entries: Iterable[Entry]) -> list[Update]:
    """The conversation of ``entries``: prompts, answers, tool calls with results, plans,
    and the model that answered wherever it changed (a thought, as a live run says it)."""
    updates: list[Update] = []
    started: set[str] = set()
    #: What a delegate call's subagent did, kept above the call's result.
    children: dict[str, str] = {}
    model: str | None = None
    for entry in entries:
        if isinstance(entry, AssistantMessage) and entry.model and entry.model != model:
            model = entry.model
            updates.append(helpers.update_agent_thought_text(f"Model: {model}\n"))
        if isinstance(entry, RunStartEntry):
            updates.append(helpers.update_user_message_text(entry.prompt))
        elif isinstance(entry, ModelChoiceEntry):
            chosen = entry.model or "the default"
            updates.append(helpers.update_agent_thought_text(f"/model: {chosen}\n"))
        elif isinstance(entry, AssistantMessage) and entry.content:
            updates.append(helpers.update_agent_message_text(entry.content))
        elif isinstance(entry, ToolCallEntry) and entry.call_id not in started:
            started.add(entry.call_id)
            updates.append(
                helpers.start_tool_call(
                    entry.call_id,
                    tool_title(entry.name, entry.arguments),
                    kind=tool_kind(entry.name),
                    status="in_progress",
                    raw_input=entry.arguments,
                )
            )
        elif isinstance(entry, SubagentEntry) and entry.call_id in started:
            children[entry.call_id] = subagent_text(entry)
            content = [helpers.tool_content(helpers.text_block(children[entry.call_id]))]
            updates.append(helpers.update_tool_call(entry.call_id, content=content))
        elif isinstance(entry, ToolResultEntry) and entry.call_id in started:
            texts = [children.get(entry.call_id, ""), shorten(entry.content, MAX_RESULT_CHARS)]
            updates.append(
                helpers.update_tool_call(
                    entry.call_id,
                    status="completed" if entry.success else "failed",
                    content=[helpers.tool_content(helpers.text_block(t)) for t in texts if t],
                )
            )
        elif isinstance(entry, PlanEntry):
            updates.append(
                helpers.update_plan(
                    [
                        helpers.plan_entry(step.get("text", ""), status=_status(step))
                        for step in entry.steps
                    ]
                )
            )
    return updates


def subagent_text(entry: SubagentEntry) -> str:
    """What the session kept of a subagent, as the live ``delegate`` call showed it (its
    tool calls are not kept)."""
    model = f" ({entry.model})" if entry.model else ""
    return (
        f"{entry.agent}{model}: {entry.task}\n"
        f"{entry.agent} {entry.status}: {entry.steps} steps · {entry.total_tokens:,} tokens"
    )


def _status(step: dict[str, str]) -> PlanStatus:
    return plan_status(step.get("status", ""))
