"""Messages the user sends a run while it works.

A message is queued: the model reads it before its next call, as a user message marked as
sent mid-run. A message sent with ``steer`` also cuts the model call in flight, whose text
is void, and the call starts again with the message. A run that ends while a message
waits does not end: the model answers the message first. Once the run is over, the
mailbox is closed and a new message is refused with a reason the user can read.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import Literal

from agentls.agent.errors import AgentError

MessageMode = Literal["queue", "steer"]

#: How the model sees a message that arrived while it worked.
MID_RUN_HEADING = "[The user sent this message while you were working]"


class RunMessageError(AgentError):
    """A message that cannot reach the run (it has ended, or the text is empty)."""


@dataclass(frozen=True)
class PendingMessage:
    id: str
    text: str
    mode: MessageMode


class RunMessages:
    """One run's mailbox. Front ends ``send``; the loop ``take``s before each model call
    and waits on ``steered`` while the model is working."""

    def __init__(self) -> None:
        self._pending: list[PendingMessage] = []
        self._ids = itertools.count(1)
        self._closed: str | None = None
        self._steer: asyncio.Event | None = None

    def send(self, text: str, mode: MessageMode = "queue") -> PendingMessage:
        if self._closed is not None:
            raise RunMessageError(self._closed)
        if not text.strip():
            raise RunMessageError("the message is empty")
        message = PendingMessage(f"m{next(self._ids)}", text, mode)
        self._pending.append(message)
        if mode == "steer":
            self._steer_event().set()
        return message

    @property
    def waiting(self) -> bool:
        return bool(self._pending)

    def take(self) -> list[PendingMessage]:
        """Every message not yet given to the model, oldest first."""
        taken, self._pending = self._pending, []
        if self._steer is not None:
            self._steer.clear()
        return taken

    async def steered(self) -> None:
        """Returns when a ``steer`` message arrives (at once if one is waiting)."""
        await self._steer_event().wait()

    def close(self, reason: str) -> list[PendingMessage]:
        """No more messages (the run ended); those the model never read. The first
        reason given stays."""
        if self._closed is None:
            self._closed = reason
        return self.take()

    def _steer_event(self) -> asyncio.Event:
        if self._steer is None:
            self._steer = asyncio.Event()
        return self._steer


def as_model_message(messages: list[PendingMessage]) -> str:
    """The messages as one user message for the model."""
    return "\n\n".join(f"{MID_RUN_HEADING}\n{m.text}" for m in messages)
