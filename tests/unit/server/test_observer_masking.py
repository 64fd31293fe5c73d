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


async def test_a_large_piece_goes_out_in_pieces_of_at_most_the_flush_size_and_keys_whole() -> None:
    # The model worker joins the provider's pieces, so one piece may hold thousands of
    # characters; a key straddling where a notification would end stays whole.
    from agentls.server.observer import FLUSH_CHARS

    sent: list[tuple[str, dict[str, Any]]] = []
    observer = LspRunObserver("r1", lambda method, params: sent.append((method, params)))
    words = "".join(f"word{i:03d} " for i in range(60))  # 480 characters
    observer(events.StreamText(words + f"key {TOKEN} " + words * 3))
    observer(events.StreamText("end"))
    observer.close()
    texts = [p["text"] for m, p in sent if m == "agent/stream"]
    assert len(texts) > 3 and all(len(t) <= FLUSH_CHARS for t in texts)
    assert "".join(texts) == words + "key *** " + words * 3 + "end"
