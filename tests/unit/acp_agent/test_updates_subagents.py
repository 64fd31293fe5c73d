"""A subagent's work over ACP: its tool calls are the session's tool calls titled with its
name (``_meta`` names the ``delegate`` call), the ``delegate`` call's content follows its
progress; a question it asks names it."""

from __future__ import annotations

from typing import Any

from agentls.acp_agent.approver import AcpApprover, SessionRules
from agentls.acp_agent.protocol.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)
from agentls.acp_agent.replay import replay
from agentls.acp_agent.updates import UpdateSender
from agentls.agent import events
from agentls.agent.policy.approval import ApprovalRequest
from agentls.agent.sessions.entries import SubagentEntry, ToolCallEntry, ToolResultEntry


class Client:
    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.asked: list[ToolCallUpdate] = []

    async def session_update(self, session_id: str, update: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        self.asked.append(tool_call)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow_once")
        )


def texts(content: list[Any] | None) -> list[str]:
    return [
        c.content.text
        for c in content or []
        if isinstance(c, ContentToolCallContent) and isinstance(c.content, TextContentBlock)
    ]


def child(event: events.AgentEvent) -> events.SubagentEvent:
    return events.SubagentEvent("d1", "explore", event)


async def test_a_subagents_calls_are_titled_with_its_name_and_nested_by_meta() -> None:
    client = Client()
    sender = UpdateSender(client, "s1", "/ws")  # type: ignore[arg-type]
    args = {"agent": "explore", "task": "find foo", "wait": True}
    sender.observer(events.ToolStarted(3, 20, "d1", "delegate", args))
    sender.observer(events.SubagentStarted("d1", "explore", "find foo", "openai/small"))
    sender.observer(child(events.StepStarted(1, 10)))
    sender.observer(child(events.ToolStarted(1, 10, "d1/c1", "grep", {"pattern": "foo"})))
    sender.observer(
        child(events.ToolFinished(1, 10, "d1/c1", "grep", {"pattern": "foo"}, True, "3 hits"))
    )
    sender.observer(events.SubagentFinished("d1", "explore", "success", "in a.py", 2, 90, 10, 100))
    sender.observer(events.ToolFinished(3, 20, "d1", "delegate", args, True, "foo is in a.py"))
    await sender.flush()
    await sender.close()

    starts = [u for u in client.updates if isinstance(u, ToolCallStart)]
    assert [(u.tool_call_id, u.title) for u in starts] == [
        ("d1", "delegate"),
        ("d1/c1", "explore › grep foo"),
    ]
    meta = {"agentls": {"parentToolCallId": "d1", "agent": "explore"}}
    assert starts[1].field_meta == meta
    assert starts[1].model_dump(mode="json", by_alias=True)["_meta"] == meta
    child_end = next(
        u for u in client.updates if isinstance(u, ToolCallProgress) and u.tool_call_id == "d1/c1"
    )
    assert child_end.status == "completed" and child_end.field_meta == meta
    assert texts(child_end.content) == ["3 hits"]

    delegate = [
        u for u in client.updates if isinstance(u, ToolCallProgress) and u.tool_call_id == "d1"
    ]
    assert delegate[0].title == "delegate → explore"
    assert [texts(u.content) for u in delegate] == [
        ["explore (openai/small): find foo"],
        ["explore (openai/small): find foo\n✓ grep foo"],
        ["explore (openai/small): find foo\n✓ grep foo\nexplore success: 2 steps · 100 tokens"],
        [
            "explore (openai/small): find foo\n✓ grep foo\nexplore success: 2 steps · 100 tokens",
            "foo is in a.py",
        ],
    ]
    assert delegate[-1].status == "completed"


async def test_a_subagents_question_names_it() -> None:
    client = Client()
    sender = UpdateSender(client, "s1", "/ws")  # type: ignore[arg-type]
    approver = AcpApprover(client, "s1", SessionRules(), sender)  # type: ignore[arg-type]
    request = ApprovalRequest(
        "r1", "d1/c1", "execute_command", {"command": "ls"}, "sensitive", subagent="explore"
    )
    answer = await approver.ask(request)
    await sender.close()
    assert answer.kind == "approve"
    (call,) = client.asked
    assert call.title == "explore › execute_command ls"
    assert texts(call.content)[0] == "The subagent explore asks."


def test_a_replayed_session_shows_what_it_kept_of_a_subagent_in_its_delegate_call() -> None:
    args = {"agent": "explore", "task": "find foo"}
    entries = [
        ToolCallEntry(run_id="r1", call_id="d1", name="delegate", arguments=args),
        SubagentEntry(
            run_id="r1",
            call_id="d1",
            agent="explore",
            task="find foo",
            status="success",
            steps=3,
            model="openai/small",
            total_tokens=1200,
            report="foo is in a.py",
        ),
        ToolResultEntry(
            run_id="r1", call_id="d1", name="delegate", success=True, content="in a.py"
        ),
    ]
    updates = replay(entries)
    progress = [u for u in updates if isinstance(u, ToolCallProgress)]
    kept = "explore (openai/small): find foo\nexplore success: 3 steps · 1,200 tokens"
    assert [texts(u.content) for u in progress] == [[kept], [kept, "in a.py"]]
    assert progress[-1].status == "completed"
