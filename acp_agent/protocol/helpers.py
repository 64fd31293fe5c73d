"""Builders of the session updates and tool call contents agentls sends, named as the
SDK's helpers are, building the same messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agentls.acp_agent.protocol.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandsUpdate,
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    TextContentBlock,
    ToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolKind,
    UserMessageChunk,
)


def text_block(text: str) -> TextContentBlock:
    return TextContentBlock(text=text)


def tool_content(block: TextContentBlock) -> ContentToolCallContent:
    return ContentToolCallContent(content=block)


def tool_diff_content(
    path: str, new_text: str, old_text: str | None = None
) -> FileEditToolCallContent:
    return FileEditToolCallContent(path=path, new_text=new_text, old_text=old_text)


def plan_entry(
    content: str, *, priority: PlanEntryPriority = "medium", status: PlanEntryStatus = "pending"
) -> PlanEntry:
    return PlanEntry(content=content, priority=priority, status=status)


def update_plan(entries: Iterable[PlanEntry]) -> AgentPlanUpdate:
    return AgentPlanUpdate(entries=list(entries))


def update_user_message_text(text: str) -> UserMessageChunk:
    return UserMessageChunk(content=text_block(text))


def update_agent_message_text(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(content=text_block(text))


def update_agent_thought_text(text: str) -> AgentThoughtChunk:
    return AgentThoughtChunk(content=text_block(text))


def update_available_commands(commands: Iterable[AvailableCommand]) -> AvailableCommandsUpdate:
    return AvailableCommandsUpdate(available_commands=list(commands))


def start_tool_call(
    tool_call_id: str,
    title: str,
    *,
    kind: ToolKind | None = None,
    status: ToolCallStatus | None = None,
    content: Sequence[ToolCallContent] | None = None,
    locations: Sequence[ToolCallLocation] | None = None,
    raw_input: Any | None = None,
) -> ToolCallStart:
    return ToolCallStart(
        tool_call_id=tool_call_id,
        title=title,
        kind=kind,
        status=status,
        content=None if content is None else list(content),
        locations=None if locations is None else list(locations),
        raw_input=raw_input,
    )


def update_tool_call(
    tool_call_id: str,
    *,
    title: str | None = None,
    kind: ToolKind | None = None,
    status: ToolCallStatus | None = None,
    content: Sequence[ToolCallContent] | None = None,
) -> ToolCallProgress:
    return ToolCallProgress(
        tool_call_id=tool_call_id,
        title=title,
        kind=kind,
        status=status,
        content=None if content is None else list(content),
    )
