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


async def test_a_secret_split_across_streamed_chunks_is_masked_whole() -> None:
    """A model's stream may cut a token or its introducing words anywhere; the session
    still gets the text in order, whole, and masked."""
    secret = "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "0123456789"
    answer = f"Here: {TOKEN} and\n{secret}\nmachine h login me password n3trc-Secret99 done.\n"
    for size in (1, 3, 7, 24):
        client = _Client()
        sender = UpdateSender(client, "s1", "/ws")  # type: ignore[arg-type]
        for start in range(0, len(answer), size):
            sender.observer(events.StreamText(answer[start : start + size]))
        sender.observer(events.Notice("warning", "then a notice"))
        await sender.close()
        texts = [u.content.text for u in client.updates]
        shown = "".join(texts[:-1])
        assert texts[-1] == "warning: then a notice"  # after all the text, in order
        assert shown.startswith("Here: ") and shown.endswith(" done.\n"), size
        for part in (TOKEN, "wJalrXUtnFEMI", "n3trc-Secret99"):
            assert part not in shown, (size, part)
        assert shown.count("***") == 3, shown
