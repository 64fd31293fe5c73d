"""A run's events as ACP ``session/update`` notifications, sent in order.

The agent's Observer is a plain callback, while a notification is awaited: events go
into a queue that one task drains, so the client sees them in the order they happened,
and ``flush`` lets a prompt answer only after its last update went out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.protocol.client import Client
from agentls.acp_agent.protocol.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)
from agentls.agent.context.meter import compaction_text
from agentls.agent.events import (
    AgentEvent,
    ContextCompacted,
    ContextMeasured,
    InstructionsRead,
    Notice,
    PlanUpdated,
    StatusChanged,
    StreamRestarted,
    StreamText,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
    ToolStarted,
    WorktreeSetup,
)
from agentls.agent.secrets import HeldText, mask_outward, mask_tree
from agentls.agent.workspace import FileChange

log = logging.getLogger(__name__)

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | UsageUpdate
)
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]

#: What each built-in tool does, in ACP's words (MCP tools are "other").
TOOL_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_files": "read",
    "edit_file": "edit",
    "apply_patch": "edit",
    "write_file": "edit",
    "delete_file": "delete",
    "grep": "search",
    "search_code": "search",
    "find_files": "search",
    "find_symbol": "search",
    "find_references": "search",
    "execute_command": "execute",
    "python_executor": "execute",
    "update_plan": "think",
    "ask_user": "other",
}


PlanStatus = Literal["pending", "in_progress", "completed"]
_PLAN_STATUS: dict[str, PlanStatus] = {"done": "completed", "in_progress": "in_progress"}


def plan_status(status: str) -> PlanStatus:
    """A plan step's status in ACP's words (ours says "done")."""
    return _PLAN_STATUS.get(status, "pending")


def tool_kind(tool: str) -> ToolKind:
    return TOOL_KINDS.get(tool, "other")


def tool_title(tool: str, args: dict[str, Any]) -> str:
    """``read_file app.py``: the tool and its most telling short argument."""
    for key in ("path", "command", "pattern", "query", "name"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return f"{tool} {value}"
    return tool


def subagent_title(agent: str, title: str) -> str:
    """``explore › grep foo``: a subagent's tool call, named after the subagent."""
    return f"{agent} › {title}"


def subagent_meta(parent_call_id: str, agent: str) -> dict[str, Any]:
    """The ``_meta`` of a subagent's tool call: the run's ``delegate`` call it is nested
    under, for a client that can show it there (ACP has no nesting of its own)."""
    return {"agentls": {"parentToolCallId": parent_call_id, "agent": agent}}


@dataclass
class ChildProgress:
    """What the ``delegate`` call's content shows of its subagent: a head line, a line
    per tool call that ended, and the end."""

    head: str
    calls: list[str] = field(default_factory=list)
    end: str = ""

    def text(self) -> str:
        return "\n".join([self.head, *self.calls, *([self.end] if self.end else [])])


def diff_content(path: str, old: str | None, new: str) -> FileEditToolCallContent:
    return helpers.tool_diff_content(path, new, old)


class UpdateSender:
    """One session's outgoing updates, in order; ``observer`` is the run's Observer."""

    def __init__(self, client: Client, session_id: str, root: str) -> None:
        self.client = client
        self.session_id = session_id
        self.root = root
        self.streamed_text = False
        #: The model's streamed text not yet sent: a secret split across two chunks is
        #: masked whole, as in the terminal and the editor.
        self._text = HeldText()
        self._queue: asyncio.Queue[Update | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._drain(), name=f"acp-updates-{session_id}")
        #: Diffs of applied edits by path, shown when the tool call that made them ends.
        self._diffs: dict[str, FileEditToolCallContent] = {}
        #: What each ``delegate`` call shows of its subagent, by the call's id.
        self._children: dict[str, ChildProgress] = {}

    def send(self, update: Update) -> None:
        """``update`` after the streamed text still held, so the session keeps its order."""
        self._send_text(self._text.rest())
        self._queue.put_nowait(update)

    def _send_text(self, masked: str) -> None:
        if masked:
            self._queue.put_nowait(helpers.update_agent_message_text(masked))

    async def _drain(self) -> None:
        while (update := await self._queue.get()) is not None:
            try:
                await self.client.session_update(session_id=self.session_id, update=update)
            except Exception:  # a client that went away must not end the run
                log.warning("could not send a session update", exc_info=True)
            finally:
                self._queue.task_done()
        self._queue.task_done()

    async def flush(self) -> None:
        """Every update so far, the held text too, delivered."""
        self._send_text(self._text.rest())
        await self._queue.join()

    async def close(self) -> None:
        self._send_text(self._text.rest())
        self._queue.put_nowait(None)
        await self._task

    def applied(self, changes: Sequence[FileChange]) -> None:
        """Edits that reached the files (the FileAccess calls this after a write)."""
        for change in changes:
            self._diffs[change.path] = diff_content(
                self.absolute(change.path), change.base_text, change.new_text or ""
            )

    def absolute(self, path: str) -> str:
        return path if path.startswith("/") else f"{self.root}/{path}"

    def _diffs_of(self, event: ToolFinished) -> list[FileEditToolCallContent]:
        """The diffs a finished edit made: of its ``path``, or all (a patch names its own)."""
        if tool_kind(event.tool) not in {"edit", "delete"}:
            return []
        path = event.args.get("path")
        if isinstance(path, str) and path:
            diff = self._diffs.pop(path, None)
            return [diff] if diff is not None else []
        diffs = list(self._diffs.values())
        self._diffs.clear()
        return diffs

    # -- the run's Observer ------------------------------------------------------------
    def observer(self, event: AgentEvent) -> None:
        """Every text of ``event`` leaves through the outward pass (the diffs of applied
        edits are the editor's own files, and stay as they are)."""
        if isinstance(event, StreamText):
            self.streamed_text = True
            self._send_text(self._text.add(event.text))
        elif isinstance(event, StreamRestarted):
            self.send(
                helpers.update_agent_message_text(
                    f"\n\n[the model's answer was cut ({event.reason}); it starts again]\n\n"
                )
            )
        elif isinstance(event, ToolStarted):
            self.send(self._started(event))
        elif isinstance(event, ToolFinished):
            self.send(self._finished(event))
        elif isinstance(event, SubagentStarted | SubagentFinished | SubagentEvent):
            self._subagent(event)
        elif isinstance(event, PlanUpdated):
            entries = [
                helpers.plan_entry(step.text, status=plan_status(step.status))
                for step in event.steps
            ]
            self.send(helpers.update_plan(entries))
        elif isinstance(event, ContextMeasured):
            self.send(UsageUpdate(session_update="usage_update", used=event.used, size=event.limit))
        elif isinstance(event, ContextCompacted):
            self.send(helpers.update_agent_thought_text(compaction_text(event)))
        elif isinstance(event, StatusChanged) and event.model:
            self.send(helpers.update_agent_thought_text(f"Model: {event.model}\n"))
        elif isinstance(event, InstructionsRead):
            what = "Instructions joined" if event.joined else "Instructions"
            self.send(helpers.update_agent_thought_text(f"{what}: {', '.join(event.files)}"))
        elif isinstance(event, Notice) and event.level in {"warning", "error"}:
            message = mask_outward(event.message)
            self.send(helpers.update_agent_thought_text(f"{event.level}: {message}"))
        elif isinstance(event, WorktreeSetup):
            text = event.text
            if event.kind == "started":
                text = f"setting up worktree {event.worktree}: $ {text}"
            self.send(helpers.update_agent_thought_text(text + "\n"))

    def _started(self, event: ToolStarted, agent: str = "") -> ToolCallStart:
        event = dataclasses.replace(event, args=mask_tree(event.args))
        path = event.args.get("path")
        locations = [ToolCallLocation(path=self.absolute(path))] if isinstance(path, str) else None
        title = tool_title(event.tool, event.args)
        return helpers.start_tool_call(
            event.call_id,
            subagent_title(agent, title) if agent else title,
            kind=tool_kind(event.tool),
            status="in_progress",
            locations=locations,
            raw_input=event.args,
        )

    def _finished(self, event: ToolFinished) -> ToolCallProgress:
        content: list[ContentToolCallContent | FileEditToolCallContent] = [
            *self._diffs_of(event),
            helpers.tool_content(helpers.text_block(mask_outward(event.summary))),
        ]
        child = self._children.get(event.call_id)
        if child is not None:  # a delegate call keeps what its subagent did above its report
            content.insert(0, _text(child.text()))
        return helpers.update_tool_call(
            event.call_id,
            status="completed" if event.success else "failed",
            content=content,
        )

    # -- subagents ---------------------------------------------------------------------
    def _subagent(self, event: SubagentStarted | SubagentFinished | SubagentEvent) -> None:
        """A subagent's tool calls are tool calls of the session titled with its name
        (``_meta`` names the ``delegate`` call they belong to); the ``delegate`` call's
        content follows the subagent's progress, line by line."""
        if isinstance(event, SubagentStarted):
            how = ", in the background" if event.background else ""
            model = f" ({event.model})" if event.model else ""
            head = f"{event.agent}{model}{how}: {mask_outward(event.task)}"
            self._children[event.call_id] = ChildProgress(head)
            self._progress_of(event.call_id, title=f"delegate → {event.agent}")
            return
        child = self._children.get(event.call_id)
        if isinstance(event, SubagentFinished):
            if child is not None:
                child.end = (
                    f"{event.agent} {event.status}: {event.steps} steps · "
                    f"{event.total_tokens:,} tokens"
                )
                self._progress_of(event.call_id)
            return
        inner, meta = event.event, subagent_meta(event.call_id, event.agent)
        if isinstance(inner, ToolStarted):
            start = self._started(inner, event.agent)
            self.send(start.model_copy(update={"field_meta": meta}))
        elif isinstance(inner, ToolFinished):
            end = self._finished(inner)
            self.send(end.model_copy(update={"field_meta": meta}))
            if child is not None:
                mark = "✓" if inner.success else "✗"
                title = tool_title(inner.tool, mask_tree(inner.args))
                child.calls.append(f"{mark} {title}")
                self._progress_of(event.call_id)

    def _progress_of(self, call_id: str, *, title: str | None = None) -> None:
        """The ``delegate`` call's content: what its subagent did so far."""
        child = self._children[call_id]
        self.send(helpers.update_tool_call(call_id, title=title, content=[_text(child.text())]))


def _text(text: str) -> ContentToolCallContent:
    return helpers.tool_content(helpers.text_block(text))
