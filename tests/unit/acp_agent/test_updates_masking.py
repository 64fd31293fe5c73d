"""ACP's session updates leave masked: streamed text, notices, a tool's input and result."""

from __future__ import annotations

import json
from typing import Any

from agentls.acp_agent.updates import UpdateSender
from agentls.agent import events

TOKEN = "xoxb-" + "123456789012-abcdefABCDEF123"


class _Client:
    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any) -> None:
        self.updates.append(update)


async def test_every_update_is_masked() -> None:
    client = _Client()
    sender = UpdateSender(client, "s1", "/ws")  # type: ignore[arg-type]
    sender.observer(events.StreamText(f"found {TOKEN} "))
    sender.observer(events.Notice("warning", f"bad token {TOKEN}"))
    started = events.ToolStarted(1, 5, "c1", "execute_command", {"command": f"echo {TOKEN}"})
    sender.observer(started)
    sender.observer(
        events.ToolFinished(1, 5, "c1", "execute_command", started.args, True, f"{TOKEN}")
    )
    await sender.flush()
    await sender.close()
    dumped = json.dumps([u.model_dump(mode="json") for u in client.updates])
    assert len(client.updates) == 4 and TOKEN not in dumped and "***" in dumped
