"""Cooperative cancellation: a graceful shutdown, in asyncio form.

A terminal program would install a SIGINT handler and check ``should_stop`` at the top of
each step. In an asyncio server there is no signal to catch per run, so each run gets a
``CancelToken``: the CLI's SIGINT handler, the server's ``$/cancelRequest``,
``window/workDoneProgress/cancel`` and ``agent/cancel`` all call ``cancel()``.
The loop checks it at the start of every step and also races it against the
model call, so a cancel during a long stream takes effect at once.
"""

from __future__ import annotations

import asyncio


class CancelToken:
    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.reason = ""

    def cancel(self, reason: str = "cancelled by the user") -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()
