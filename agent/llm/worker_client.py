"""``ProcessLLM``: the ``LLM`` protocol served by a model worker process.

The language server answers the editor from one event loop; litellm's per-call and
per-chunk Python work, even on another thread, takes the GIL from it (see
``agentls.agent.llm.worker``). ``ModelWorker`` owns one ``python -m agentls.agent.llm.worker``
child shared by every run of a server, through ``agentls.child_rpc`` (started on first use
or by ``prepare()`` ahead of it, started again on the next call after it died or was
stopped for being idle). ``ProcessLLM`` is the per-run view with the run's ``LLMConfig``.

What the caller sees is what ``LiteLLMAdapter`` gives in-process: the same chunks, the
same final ``LLMResponse``, the same ``LLMError`` classes and messages. A worker that
dies mid-stream cuts the stream: the call starts again on a new worker (a ``StreamRestart``
first when text was passed on), up to ``retries`` times, then fails as an
``LLMTransientError`` (``LLMStreamInterrupted`` once text was passed on); cancelling the
caller cancels the call in the worker, which closes the HTTP stream.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import Any

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm.errors import LLMError, LLMStreamInterrupted, LLMTransientError
from agentls.agent.llm.model_facts import KnownModels, ModelFacts
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart
from agentls.agent.llm.tokens import CountMemo, MessageCounts
from agentls.agent.llm.wire import error_from_wire
from agentls.child_rpc import Call, WorkerExited, WorkerRPC
from agentls.child_wire import FrameError
from agentls.children import module_command

log = logging.getLogger(__name__)


#: A command line that starts the model worker in place of ``python -m
#: agentls.agent.llm.worker`` (a profiler, another interpreter, a wrapper); the worker's
#: arguments are added after it. The e2e tests fork workers from a process that has
#: imported litellm already.
WORKER_COMMAND_VARIABLE = "AGENTLS_MODEL_WORKER_COMMAND"


def worker_command() -> list[str]:
    """How to start the model worker: ``AGENTLS_MODEL_WORKER_COMMAND``, else the module."""
    chosen = os.environ.get(WORKER_COMMAND_VARIABLE, "").strip()
    return shlex.split(chosen) if chosen else module_command("agentls.agent.llm.worker")


class ModelWorker(WorkerRPC):
    """One worker process for the calls of one event loop. ``idle_seconds`` (read when
    the worker falls idle; 0: never) stops it after that long without a call or a
    ``hold()``; the next call starts it again."""

    def __init__(
        self,
        command: Sequence[str] | None = None,
        *,
        log_level: str | None = None,
        idle_seconds: Callable[[], float] | None = None,
    ) -> None:
        level = log_level or logging.getLevelName(logging.getLogger().getEffectiveLevel())
        super().__init__(
            [*(command or worker_command()), "--log-level", str(level)],
            name="the model worker",
            error=LLMTransientError,
            announces_ready=True,
            idle_seconds=idle_seconds,
        )

    async def open(
        self,
        op: str,
        config: LLMConfig,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
    ) -> Call:
        """Send one request; read its frames from the call, then close it."""
        fields = {"config": config.model_dump(mode="json"), "messages": messages, "tools": tools}
        try:
            return await self.call(op, fields)
        except FrameError as exc:
            raise LLMError(f"the conversation cannot be sent to the model: {exc}") from None

    async def one_answer(self, op: str, fields: dict[str, Any]) -> dict[str, Any]:
        """One request answered by one frame (``check``, ``models``); its error raised."""
        call = await self.call(op, fields)
        frame: dict[str, Any] = {}
        try:
            frame = await call.next()
        except WorkerExited as exc:
            raise LLMTransientError(f"the model worker exited (code {exc.code})") from None
        finally:
            call.close(cancel=not frame)
        if frame.get("kind") == "error":
            raise error_from_wire(frame.get("error") or {})
        return frame

    async def prepare(self, config: LLMConfig) -> bool:
        """The worker started and ready for ``config``'s calls: litellm imported when they
        go through it (not for an OpenAI-compatible endpoint). Whether litellm is loaded."""
        frame = await self.one_answer("warm", {"config": config.model_dump(mode="json")})
        return bool(frame.get("litellm"))

    async def known_models(
        self, ids: list[str], providers: list[str], *, from_file: bool = False
    ) -> KnownModels:
        """litellm's part of ``agent.llm.available``, answered by the worker (``from_file``:
        from litellm's list file, without importing it)."""
        fields = {"ids": ids, "providers": providers, "from_file": from_file}
        frame = await self.one_answer("models", fields)
        return KnownModels.model_validate(frame.get("known") or {})


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
                        self._count_memo.answered(messages, tools, item.usage)
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
                        if isinstance(item, LLMResponse):
                            self._count_memo.answered(messages, tools, item.usage)
                        else:
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

    async def check(self) -> ModelFacts | None:
        """The checks before a run's first call, made in the worker (model_check)."""
        config = self.config.model_dump(mode="json")
        frame = await self.worker.one_answer("check", {"config": config})
        facts = frame.get("facts")
        return ModelFacts.model_validate(facts) if facts else None

    async def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        """Counted by litellm in the worker (new messages only), or from the provider's
        reports where the calls do not go through litellm (``tokens``): this process never
        loads litellm or a tokenizer."""
        return await self._count_memo.total(messages)

    async def _count_in_worker(self, messages: list[dict[str, Any]]) -> MessageCounts:
        call = await self.worker.open("count", self.config, messages, None)
        frame: dict[str, Any] = {}
        try:
            frame = await call.next()
        finally:
            call.close(cancel=not frame)
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
                try:
                    frame = await call.next()
                except WorkerExited as exc:
                    finished = True
                    died = _worker_died(exc.code, "".join(text), self.config.model)
                    raise _WorkerDied(died) from None
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
        finally:
            # Done, failed, or the caller stopped listening (cancelled): in the last
            # case the worker must stop the call and close the provider's stream.
            call.close(cancel=not finished)


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
