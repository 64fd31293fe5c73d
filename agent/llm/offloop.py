"""Model calls on a background event loop, so a front end's own loop stays free.

litellm does noticeable synchronous work per call (request building, SSE parsing,
logging objects: tens of milliseconds per step). In the language server that work
would run on the loop that answers the editor, delaying hover, cancel and progress.
``OffloopLLM`` wraps any LLM and runs its calls on one daemon thread with its own
event loop; results and stream chunks come back through thread-safe handoffs, and
cancelling the caller cancels the call on the background loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from agent.llm.models import LLMResponse, StreamChunk

T = TypeVar("T")


class BackgroundLoop:
    """One event loop on a daemon thread, started on first use."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="agentls-llm-loop", daemon=True
                )
                thread.start()
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


_SHARED = BackgroundLoop()


class OffloopLLM:
    """The ``LLM`` protocol, delegated to ``inner`` on a background loop."""

    def __init__(self, inner: Any, background: BackgroundLoop | None = None) -> None:
        self.inner = inner
        self._background = background or _SHARED

    @property
    def config(self) -> Any:
        return self.inner.config

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        future = self._background.submit(self.inner.completion(messages, tools))
        try:
            result: LLMResponse = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise
        return result

    async def completion_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamChunk | LLMResponse]:
        caller = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

        def hand_over(kind: str, value: Any) -> None:
            caller.call_soon_threadsafe(queue.put_nowait, (kind, value))

        async def pump() -> None:
            try:
                async for item in self.inner.completion_stream(messages, tools):
                    hand_over("item", item)
            except BaseException as exc:  # re-raised on the caller's side
                hand_over("error", exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
            else:
                hand_over("end", None)

        future = self._background.submit(pump())
        try:
            while True:
                kind, value = await queue.get()
                if kind == "item":
                    yield value
                elif kind == "end":
                    return
                else:
                    raise value
        finally:
            # The caller stopped (done, cancelled, or an error): stop the call too.
            future.cancel()

    def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        count: int = self.inner.count_tokens(messages)
        return count
