"""``ProcessLLM``: the ``LLM`` protocol served by a model worker process.

The language server answers the editor from one event loop; litellm's per-call and
per-chunk Python work, even on another thread, takes the GIL from it (see
``agentls.agent.llm.worker``). ``ModelWorker`` owns one ``python -m agentls.agent.llm.worker`` child
shared by every run of a server: spawned on first use (or by ``start()`` ahead of it),
spawned again on the next call after it died. ``ProcessLLM`` is the per-run view with
the run's ``LLMConfig``.

What the caller sees is what ``LiteLLMAdapter`` gives in-process: the same chunks, the
same final ``LLMResponse``, the same ``LLMError`` classes and messages. A worker that
dies mid-stream cuts the stream: the call starts again on a new worker (a ``StreamRestart``
first when text was passed on), up to ``retries`` times, then fails as an
``LLMTransientError`` (``LLMStreamInterrupted`` once text was passed on); cancelling the
caller cancels the call in the worker, which closes the HTTP stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any

from agentls.agent.config import LLMConfig
from agentls.agent.llm.errors import LLMError, LLMStreamInterrupted, LLMTransientError
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart
from agentls.agent.llm.tokens import CountMemo, MessageCounts
from agentls.agent.llm.wire import MAX_LINE_BYTES, decode, encode, error_from_wire
from agentls.children import module_command, running, start_piped

log = logging.getLogger(__name__)

#: How long ``close()`` waits for the child after closing its stdin.
_EXIT_GRACE_SECONDS = 2.0


class _Call:
    """The frames of one request, in the order the worker sent them."""

    def __init__(self, call_id: int) -> None:
        self.id = call_id
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()


class ModelWorker:
    """One worker process for the calls of one event loop."""

    def __init__(
        self, command: Sequence[str] | None = None, *, log_level: str | None = None
    ) -> None:
        level = log_level or logging.getLevelName(logging.getLogger().getEffectiveLevel())
        self._command = list(command or module_command("agentls.agent.llm.worker"))
        self._command += ["--log-level", str(level)]
        self._ids = itertools.count(1)
        self._calls: dict[int, _Call] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The running child's process id, if there is one."""
        return self._process.pid if self._process is not None else None

    @property
    def is_ready(self) -> bool:
        """Whether the child is up and has imported litellm."""
        return self._process is not None and self._ready is not None and self._ready.is_set()

    async def start(self) -> None:
        """Spawn the child unless it runs (idempotent; concurrent callers share one)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A process's pipes belong to the loop that spawned it; a new loop (a new
            # test, a restarted server) gets a new child.
            self._forget_process()
            self._loop, self._lock = loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            if self._closed:
                raise LLMError("the model worker was closed")
            if running(self._process):
                return
            process = await start_piped(
                self._command, MAX_LINE_BYTES, name="the model worker", error=LLMTransientError
            )
            self._process = process
            self._ready = asyncio.Event()
            self._reader = asyncio.create_task(self._read(process, self._ready))
            log.debug("model worker started (pid %d)", process.pid)

    async def wait_ready(self) -> None:
        """Until the child has imported litellm (spawning it if needed)."""
        await self.start()
        assert self._ready is not None and self._reader is not None
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait({ready, self._reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        if not self._ready.is_set():
            raise LLMTransientError("the model worker exited while starting; see the server log")

    async def open(
        self,
        op: str,
        config: LLMConfig,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
    ) -> _Call:
        """Send one request; its frames arrive on the returned call's queue."""
        await self.start()
        process, reader = self._process, self._reader
        if process is None or process.stdin is None or reader is None or reader.done():
            # It died between start() and here; the next call starts a new one.
            raise LLMTransientError("the model worker exited before the call could be sent")
        call = _Call(next(self._ids))
        frame = {
            "id": call.id,
            "op": op,
            "config": config.model_dump(mode="json"),
            "messages": messages,
            "tools": tools,
        }
        try:
            data = encode(frame)
        except (TypeError, ValueError) as exc:
            raise LLMError(f"the conversation cannot be sent to the model: {exc}") from None
        # Registered while the reader runs: if the worker dies from now on, the reader
        # hands this call an "exit" frame, so it can never wait forever.
        self._calls[call.id] = call
        try:
            process.stdin.write(data)
            await process.stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            self._calls.pop(call.id, None)
            raise LLMTransientError(f"the model worker is gone: {exc}") from None
        return call

    def release(self, call: _Call, *, cancel: bool) -> None:
        """The caller is done with ``call``; ``cancel`` stops it in the worker too."""
        if self._calls.pop(call.id, None) is None or not cancel:
            return
        process = self._process
        if process is not None and process.stdin is not None and process.returncode is None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                process.stdin.write(encode({"id": call.id, "op": "cancel"}))

    async def close(self) -> None:
        """Stop the child: stdin closed (it exits on EOF), killed if it lingers."""
        self._closed = True
        process, reader = self._process, self._reader
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), _EXIT_GRACE_SECONDS)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        if reader is not None:
            await asyncio.gather(reader, return_exceptions=True)

    def _forget_process(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        self._calls.clear()

    async def _read(self, process: asyncio.subprocess.Process, ready: asyncio.Event) -> None:
        assert process.stdout is not None
        try:
            while True:
                try:
                    line = await process.stdout.readline()
                except ValueError:  # a frame over the limit: that call can only fail
                    log.error("model worker: a reply over %d bytes was dropped", MAX_LINE_BYTES)
                    continue
                if not line:
                    break
                try:
                    frame = decode(line)
                except ValueError:
                    log.error("model worker: unreadable output %r", line[:200])
                    continue
                self._dispatch(frame, ready)
        finally:
            code = await process.wait()
            if self._process is process:
                self._process = None
            if not self._closed:
                log.warning("model worker exited (code %s); the next call starts a new one", code)
            for call in list(self._calls.values()):
                call.frames.put_nowait({"kind": "exit", "code": code})

    def _dispatch(self, frame: dict[str, Any], ready: asyncio.Event) -> None:
        kind = frame.get("kind")
        if kind == "log":
            level = frame.get("level")
            logging.getLogger(str(frame.get("name") or "agentls.agent.llm.worker")).log(
                level if isinstance(level, int) else logging.WARNING,
                "%s",
                frame.get("message", ""),
            )
        elif kind == "ready":
            ready.set()
        else:
            call = self._calls.get(frame.get("id"))  # type: ignore[arg-type]
            if call is not None:  # else: a call the caller already released
                call.frames.put_nowait(frame)


class ProcessLLM:
    """The ``LLM`` protocol for one config, its calls made by ``worker``."""

    def __init__(self, config: LLMConfig, worker: ModelWorker) -> None:
        self.config = config
        self.worker = worker
        self._count_memo = CountMemo(self._count_in_worker)

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        try:
            async with contextlib.aclosing(self._frames("complete", messages, tools)) as frames:
                async for item in frames:
                    if isinstance(item, LLMResponse):
                        return item
        except _WorkerDied as exc:
            raise exc.error from None
        raise LLMError("the model worker answered without a response")

    async def completion_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamChunk | StreamRestart | LLMResponse]:
        retry = 0
        while True:
            shown = False
            try:
                async with contextlib.aclosing(self._frames("stream", messages, tools)) as frames:
                    async for item in frames:
                        if not isinstance(item, LLMResponse):
                            shown = isinstance(item, StreamChunk)
                        yield item
                return
            except _WorkerDied as exc:
                # The worker's death cut the stream: nothing of it was acted on, so the
                # call starts again on a new worker, like a stream cut by the provider.
                if retry >= self.config.retries:
                    raise exc.error from None
                retry += 1
                log.warning(
                    "model worker died mid-call; retrying (%d of %d)", retry, self.config.retries
                )
                if shown:
                    yield StreamRestart(reason=str(exc.error), attempt=retry + 1)

    async def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        """Counted by litellm in the worker (new messages only), so this process never
        loads litellm or a tokenizer."""
        return await self._count_memo.total(messages)

    async def _count_in_worker(self, messages: list[dict[str, Any]]) -> MessageCounts:
        call = await self.worker.open("count", self.config, messages, None)
        frame: dict[str, Any] = {}
        try:
            frame = await call.frames.get()
        finally:
            self.worker.release(call, cancel=not frame)
        if frame.get("kind") == "error":
            raise error_from_wire(frame.get("error") or {})
        return MessageCounts.from_wire(frame)

    async def _frames(
        self, op: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> AsyncGenerator[StreamChunk | StreamRestart | LLMResponse, None]:
        call = await self.worker.open(op, self.config, messages, tools)
        finished = False
        text: list[str] = []
        try:
            while True:
                frame = await call.frames.get()
                kind = frame.get("kind")
                if kind == "chunk":
                    piece = str(frame.get("text", ""))
                    text.append(piece)
                    yield StreamChunk(data=piece)
                elif kind == "restart":
                    text.clear()
                    yield StreamRestart(
                        reason=str(frame.get("reason") or "the stream was cut"),
                        attempt=int(frame.get("attempt") or 2),
                    )
                elif kind == "response":
                    finished = True
                    yield LLMResponse.model_validate(frame.get("response"))
                    return
                elif kind == "error":
                    finished = True
                    raise error_from_wire(frame.get("error") or {})
                elif kind == "exit":
                    finished = True
                    raise _WorkerDied(
                        _worker_died(frame.get("code"), "".join(text), self.config.model)
                    )
        finally:
            # Done, failed, or the caller stopped listening (cancelled): in the last
            # case the worker must stop the call and close the provider's stream.
            self.worker.release(call, cancel=not finished)


class _WorkerDied(Exception):
    """The worker process exited during a call; ``error`` is what the caller is told."""

    def __init__(self, error: LLMError) -> None:
        super().__init__(str(error))
        self.error = error


def _worker_died(code: Any, partial_text: str, model: str) -> LLMError:
    message = (
        f"the model worker process exited (code {code}) during a call to {model}; "
        "it is restarted on the next call"
    )
    if partial_text:
        return LLMStreamInterrupted(message, partial_text=partial_text)
    return LLMTransientError(message)
