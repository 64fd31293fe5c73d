"""What a run reports to the editor leaves masked, even a key the model streams across two
pieces of text."""

from __future__ import annotations

import json
from typing import Any

from agentls.agent import events
from agentls.server.observer import LspRunObserver

TOKEN = "ghp_" + "Q1w2E3r4T5y6" * 3


async def test_every_notification_is_masked() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    observer = LspRunObserver("r1", lambda method, params: sent.append((method, params)))
    observer(events.ToolStarted(1, 5, "c1", "execute_command", {"command": f"echo {TOKEN}"}))
    observer(events.Notice("warning", f"the server at https://u:{TOKEN}@h failed"))
    observer(events.CommandOutput("c1", f"{TOKEN}\n"))
    observer.close()
    assert sent and TOKEN not in json.dumps(sent)


async def test_a_key_streamed_in_two_pieces_is_masked_whole() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    observer = LspRunObserver("r1", lambda method, params: sent.append((method, params)))
    observer(events.StreamText("the header is Authorization: Bearer "))
    observer.flush(whole=False)  # what the timer does between two pieces
    observer(events.StreamText(TOKEN[:10]))
    observer.flush(whole=False)
    observer(events.StreamText(TOKEN[10:] + " and that is all"))
    observer.close()
    streamed = "".join(p["text"] for m, p in sent if m == "agent/stream")
    assert streamed == "the header is Authorization: Bearer *** and that is all"
