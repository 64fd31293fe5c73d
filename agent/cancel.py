"""Cooperative cancellation: a graceful shutdown, in asyncio form.

A terminal program would install a SIGINT handler and check ``should_stop`` at the top of
each step. In an asyncio server there is no signal to catch per run, so each run gets a
``CancelToken``: the CLI's SIGINT handler, the server's ``$/cancelRequest``,
``window/workDoneProgress/cancel`` and ``agent/cancel`` all call ``cancel()``.
The loop checks it at the start of every step, and every await that may last (the
model call, a long command, a question to the human) is raced against it through
``race_cancel``, so a cancel takes effect at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


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


class Interrupted(Exception):
    """The run's token fired before the awaited work finished; the work was cancelled."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason or "cancelled")
        self.reason = reason


async def race_cancel(work: Awaitable[T], token: CancelToken, *, seconds: float | None = None) -> T:
    """``work``'s result, unless ``token`` fires first (``Interrupted``) or
    ``seconds`` pass (``TimeoutError``). Either way the work is cancelled and awaited
    before this returns, so nothing it started outlives the race."""
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(token.wait())
    try:
        async with asyncio.timeout(seconds):
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            interrupted = True
        else:
            interrupted = False
    if interrupted:
        raise Interrupted(token.reason)
    return task.result()
