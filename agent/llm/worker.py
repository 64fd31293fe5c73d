"""``python -m agentls.agent.llm.worker``: litellm's model calls in a process of their own.

litellm does tens of milliseconds of Python work per call and parses every streamed
chunk in Python. In a language server that work held the GIL away from the event loop
that answers the editor, whichever thread it ran on (measured: p99 of a trivial request
12-13 ms during a streaming run with the calls on a background thread). In this process
it costs the server nothing but reading one short line per chunk.

The worker runs the unchanged ``LiteLLMAdapter`` (retries, error mapping, stream
assembly; ``adapter_for`` picks its client) and speaks the protocol of ``agent.llm.wire``
on stdin/stdout. It exits when stdin closes, so it never outlives the process that
started it.

It is ready as soon as its own modules are loaded (~0.2 s): litellm (~3 s, ~190 MB) is
imported only by a call that needs it, or ahead of one by a ``warm`` request for a config
whose calls go through litellm. A call to an OpenAI-compatible endpoint never waits for it
(``openai_http``), so neither does the first run after the worker stopped for being idle.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import _litellm
from agentls.agent.llm.adapter import LiteLLMAdapter, adapter_for
from agentls.agent.llm.models import LLMResponse, StreamRestart
from agentls.agent.llm.wire import error_to_wire
from agentls.agent.stdout_guard import protect_stdout
from agentls.child_wire import MAX_LINE_BYTES, decode, encode

log = logging.getLogger("agentls.agent.llm.worker")

Send = Callable[[dict[str, Any]], None]


class ForwardingHandler(logging.Handler):
    """Log records as ``log`` frames: the parent logs them with its own handlers."""

    def __init__(self, send: Send, level: int) -> None:
        super().__init__(level)
        self._send = send

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if record.exc_info:
                message += "\n" + logging.Formatter().formatException(record.exc_info)
            self._send(
                {"kind": "log", "level": record.levelno, "name": record.name, "message": message}
            )
        except Exception:  # a log line must never break a model call
            self.handleError(record)


class Worker:
    """Runs the requests of one parent; each call is a task that can be cancelled."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._calls: dict[int, asyncio.Task[None]] = {}
        self._adapters: dict[str, LiteLLMAdapter] = {}

    def handle(self, frame: dict[str, Any]) -> None:
        call_id = frame.get("id")
        op = frame.get("op")
        if not isinstance(call_id, int):
            log.warning("model worker: a request without an integer id was ignored: %r", op)
            return
        if op == "cancel":
            task = self._calls.pop(call_id, None)
            if task is not None:
                task.cancel()
            return
        if op not in ("stream", "complete", "count", "check", "models", "warm"):
            self._fail(call_id, f"model worker: unknown operation {op!r}")
            return
        try:
            if op == "models":
                ids = [str(i) for i in frame.get("ids") or []]
                providers = [str(p) for p in frame.get("providers") or []]
                work = self._models(call_id, ids, providers, bool(frame.get("from_file")))
            elif op == "check":
                work = self._check(call_id, self._adapter(frame.get("config")))
            elif op == "warm":
                work = self._warm(call_id, self._adapter(frame.get("config")))
            else:
                adapter = self._adapter(frame.get("config"))
                work = self._call(call_id, op, adapter, frame["messages"], frame.get("tools"))
        except Exception as exc:
            self._fail(call_id, f"model worker: malformed request: {exc}")
            return
        task = asyncio.create_task(work)
        self._calls[call_id] = task
        task.add_done_callback(lambda _: self._calls.pop(call_id, None))

    def cancel_all(self) -> None:
        for task in self._calls.values():
            task.cancel()

    async def wait_all(self) -> None:
        await asyncio.gather(*self._calls.values(), return_exceptions=True)

    def _adapter(self, config: Any) -> LiteLLMAdapter:
        parsed = LLMConfig.model_validate(config)
        key = parsed.model_dump_json()
        adapter = self._adapters.get(key)
        if adapter is None:
            adapter = self._adapters[key] = adapter_for(parsed)
        return adapter

    def _fail(self, call_id: int, message: str) -> None:
        self._send(
            {"id": call_id, "kind": "error", "error": {"type": "LLMError", "message": message}}
        )

    async def _call(
        self,
        call_id: int,
        op: str,
        adapter: LiteLLMAdapter,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
    ) -> None:
        response: LLMResponse | None = None
        try:
            if op == "count":
                counts = await adapter.count_each(messages)
                self._send({"id": call_id, "kind": "counts", **counts.to_wire()})
                return
            if op == "complete":
                response = await adapter.completion(messages, tools)
            else:
                text = ChunkBatch(lambda piece: self._send_chunk(call_id, piece))
                try:
                    async for item in adapter.completion_stream(messages, tools):
                        if isinstance(item, LLMResponse):
                            response = item
                        elif isinstance(item, StreamRestart):
                            text.flush()
                            self._send(
                                {
                                    "id": call_id,
                                    "kind": "restart",
                                    "reason": item.reason,
                                    "attempt": item.attempt,
                                }
                            )
                        else:
                            text.add(item.data)
                except asyncio.CancelledError:
                    text.drop()  # nothing is sent after a cancel
                    raise
                except Exception:
                    text.flush()  # what was streamed comes before the error
                    raise
                text.flush()
                if response is None:
                    raise RuntimeError("the stream ended without a final response")
        except asyncio.CancelledError:
            raise  # the parent asked for it and expects no answer
        except Exception as exc:
            self._send({"id": call_id, "kind": "error", "error": error_to_wire(exc)})
        else:
            assert response is not None
            self._send({"id": call_id, "kind": "response", "response": response.model_dump()})

    async def _check(self, call_id: int, adapter: LiteLLMAdapter) -> None:
        """Whether the config's model can be called, before any call (model_check)."""
        try:
            facts = await adapter.check()
        except Exception as exc:
            self._send({"id": call_id, "kind": "error", "error": error_to_wire(exc)})
            return
        dumped = facts.model_dump() if facts is not None else None
        self._send({"id": call_id, "kind": "facts", "facts": dumped})

    async def _warm(self, call_id: int, adapter: LiteLLMAdapter) -> None:
        """What the config's calls will need loaded now (litellm, unless ``openai_http``
        makes them), so that the run does not wait for it."""
        try:
            if adapter.uses_litellm:
                await _litellm.load_litellm()
        except Exception as exc:
            self._send({"id": call_id, "kind": "error", "error": error_to_wire(exc)})
            return
        self._send({"id": call_id, "kind": "warm", "litellm": _litellm.loaded() is not None})

    async def _models(
        self, call_id: int, ids: list[str], providers: list[str], from_file: bool
    ) -> None:
        """What litellm knows of ``ids`` and the models it lists for ``providers``
        (``from_file``: read from its list file, without importing it)."""
        from agentls.agent.llm import openai_http
        from agentls.agent.llm.model_facts import known_models

        try:
            litellm: Any = openai_http.client() if from_file else await _litellm.load_litellm()
            known = await asyncio.to_thread(known_models, litellm, ids, providers)
        except Exception as exc:
            self._send({"id": call_id, "kind": "error", "error": error_to_wire(exc)})
            return
        self._send({"id": call_id, "kind": "models", "known": known.model_dump()})

    def _send_chunk(self, call_id: int, text: str) -> None:
        self._send({"id": call_id, "kind": "chunk", "text": text})


class ChunkBatch:
    """A stream's text pieces sent together when they come close together: at most
    ``BATCH_SECONDS`` after the first one waiting, or at once past ``BATCH_CHARS``.
    A provider sends a piece per token, hundreds a second with several streams, and
    each one sent alone cost this process a pipe write and the server a wake-up and a
    decode; the editor is shown text at most every 20 ms anyway."""

    BATCH_SECONDS = 0.01
    BATCH_CHARS = 2048

    def __init__(self, send: Callable[[str], None]) -> None:
        self._send = send
        self._pieces: list[str] = []
        self._chars = 0
        self._timer: asyncio.TimerHandle | None = None

    def add(self, piece: str) -> None:
        if not piece:
            return
        self._pieces.append(piece)
        self._chars += len(piece)
        if self._chars >= self.BATCH_CHARS:
            self.flush()
        elif self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.BATCH_SECONDS, self.flush)

    def drop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pieces.clear()
        self._chars = 0

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pieces:
            text = "".join(self._pieces)
            self._pieces.clear()
            self._chars = 0
            self._send(text)


async def serve(stdin: BinaryIO, stdout: BinaryIO, log_level: int) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    transport, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, stdout)

    loop_thread = threading.get_ident()

    def write(data: bytes) -> None:
        if not transport.is_closing():
            transport.write(data)

    def send(frame: dict[str, Any]) -> None:
        # Log records can come from other threads (litellm's import runs in one).
        if threading.get_ident() == loop_thread:
            write(encode(frame))
        else:
            loop.call_soon_threadsafe(write, encode(frame))

    handler = ForwardingHandler(send, log_level)
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(log_level)
    worker = Worker(send)

    async def warm_up() -> None:
        # Long-lived import garbage out of later collections (as in the server).
        gc.collect()
        gc.freeze()
        send({"kind": "ready"})

    warming = asyncio.create_task(warm_up())
    try:
        while True:
            try:
                line = await reader.readline()
            except ValueError as exc:  # a line over the limit: nothing to answer to
                log.error("model worker: request dropped: %s", exc)
                continue
            if not line:
                break  # the parent closed stdin (or exited)
            if not line.strip():
                continue
            try:
                frame = decode(line)
            except ValueError as exc:
                log.error("model worker: a malformed line was ignored: %s", exc)
                continue
            worker.handle(frame)
    finally:
        warming.cancel()
        worker.cancel_all()
        await worker.wait_all()
        logging.getLogger().removeHandler(handler)
        transport.close()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agentls.agent.llm.worker",
        description="agentls model worker: JSON lines on stdin/stdout (see agent.llm.wire)",
    )
    parser.add_argument("--log-level", default="INFO", help="forward records from this level")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = protect_stdout()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    level = logging.getLevelName(args.log_level.upper())
    loop = asyncio.new_event_loop()
    loop.run_until_complete(
        serve(sys.stdin.buffer, out, level if isinstance(level, int) else logging.INFO)
    )
    return 0


if __name__ == "__main__":
    code = main()
    # Not asyncio.run: its shutdown joins the executor thread, and a litellm import in
    # progress (~3 s) would keep a worker whose parent is gone alive and busy.
    sys.stderr.flush()
    os._exit(code)
