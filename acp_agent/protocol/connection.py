"""JSON-RPC 2.0 over newline-delimited JSON, as ACP's stdio transport frames it.

Each incoming request and notification is handled in a task of its own, so a long
``session/prompt`` never holds up a ``session/cancel`` or the client's answers to the
agent's own requests (a permission asked in the middle of that prompt). Requests the
agent sends are numbered from 0 and awaited until the client's response with that id
arrives; at the end of input every one still waiting fails with ``ConnectionError``.

Errors are answered as the SDK answers them: a ``RequestError`` with its own code and
``data``; params that do not validate ``Invalid params`` with pydantic's errors in
``data.errors``; any other exception ``Internal error`` with ``{"details": str(exc)}``
(or the exception's text when it is JSON). Frames go out one at a time, in the order
they were sent, as compact JSON with non-ASCII escaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO

from pydantic import ValidationError

log = logging.getLogger(__name__)

#: Handles a request (False) or notification (True): its result is the response's.
Handler = Callable[[str, Any, bool], Awaitable[Any]]

#: The stdin reader's buffer; a longer line is read in pieces, never refused.
READ_LIMIT = 1 << 20


class RequestError(Exception):
    """A JSON-RPC error: its code, message and data go back to the client."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data

    @classmethod
    def method_not_found(cls, method: str) -> RequestError:
        return cls(-32601, "Method not found", {"method": method})

    @classmethod
    def invalid_params(cls, data: dict[str, Any] | None = None) -> RequestError:
        return cls(-32602, "Invalid params", data)

    @classmethod
    def internal_error(cls, data: Any = None) -> RequestError:
        return cls(-32603, "Internal error", data)

    def to_error_obj(self) -> dict[str, Any]:
        return {"code": self.code, "message": str(self), "data": self.data}


def invalid_params_of(exc: ValidationError) -> RequestError:
    """Params that did not validate, with pydantic's errors (JSON-safe) in ``data``."""
    return RequestError.invalid_params({"errors": json.loads(exc.json())})


def frame_bytes(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")


class PipeProtocol(asyncio.Protocol):
    """The write end's flow control: ``drain`` waits while the pipe is full."""

    def __init__(self) -> None:
        self._writable = asyncio.Event()
        self._writable.set()
        self.lost: BaseException | None = None

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def connection_lost(self, exc: BaseException | None) -> None:
        self.lost = exc or ConnectionError("the client closed its end")
        self._writable.set()

    async def drain(self) -> None:
        await self._writable.wait()
        if self.lost is not None:
            raise self.lost


class Connection:
    """One JSON-RPC peer over a reader of lines and a pipe to write to."""

    def __init__(
        self,
        handler: Handler,
        reader: asyncio.StreamReader,
        transport: asyncio.WriteTransport,
        pipe: PipeProtocol,
    ) -> None:
        self._handler = handler
        self._reader = reader
        self._transport = transport
        self._pipe = pipe
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._write_lock = asyncio.Lock()
        #: The client closed its output (nothing it answers can arrive), or ``close`` ran.
        self._closed = False

    # -- sending ---------------------------------------------------------------------------
    async def _send(self, message: dict[str, Any]) -> None:
        data = frame_bytes(message)
        async with self._write_lock:
            if self._transport.is_closing():
                raise ConnectionError("Connection closed")
            self._transport.write(data)
            await self._pipe.drain()

    async def send_request(self, method: str, params: Any = None) -> Any:
        """The client's result of ``method``; a ``RequestError`` when it answers an error."""
        if self._closed:
            raise ConnectionError("Connection closed")
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            await self._send(message)
        except BaseException:
            self._pending.pop(request_id, None)
            raise
        try:
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def send_notification(self, method: str, params: Any = None) -> None:
        if self._closed:
            raise ConnectionError("Connection closed")
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    # -- receiving -------------------------------------------------------------------------
    async def listen(self) -> None:
        """Reads and dispatches frames until the client closes its output."""
        while (message := await self._receive()) is not None:
            self._dispatch(message)
        # No answer can come any more: what waits for one fails, and so does what would.
        self._closed = True
        self._fail_pending(ConnectionError("Connection closed"))

    async def _receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError:
                log.error("ignored a frame that is not JSON: %.200r", line)
                continue
            if not isinstance(message, dict):
                log.error("ignored a frame that is not a JSON object: %.200r", line)
                continue
            return message

    async def _read_line(self) -> bytes:
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    chunks.append(await self._reader.readuntil(b"\n"))
                    return b"".join(chunks)
                except asyncio.LimitOverrunError as exc:
                    chunks.append(await self._reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
            return b"".join(chunks)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is not None:
            work = self._answer(message) if "id" in message else self._notified(message)
            task = asyncio.create_task(work, name=f"acp {method}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif "id" in message:
            self._resolve(message)

    def _resolve(self, message: dict[str, Any]) -> None:
        future = self._pending.pop(message["id"], None) if _hashable(message["id"]) else None
        if future is None or future.done():
            return
        if "result" in message:
            future.set_result(message["result"])
        elif "error" in message:
            error = message.get("error") or {}
            future.set_exception(
                RequestError(
                    error.get("code", -32603), error.get("message", "Error"), error.get("data")
                )
            )
        else:
            future.set_result(None)

    async def _answer(self, message: dict[str, Any]) -> None:
        response: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        method = message["method"]
        try:
            response["result"] = await self._handler(method, message.get("params"), False)
        except RequestError as exc:
            response["error"] = exc.to_error_obj()
        except ValidationError as exc:
            response["error"] = invalid_params_of(exc).to_error_obj()
        except Exception as exc:
            log.exception("unhandled error while handling request method=%s", method)
            try:
                data = json.loads(str(exc))
            except ValueError:
                data = {"details": str(exc)}
            response["error"] = RequestError.internal_error(data).to_error_obj()
        try:
            await self._send(response)
        except ConnectionError:
            log.debug("the client left before the answer to %s", method)

    async def _notified(self, message: dict[str, Any]) -> None:
        method = message["method"]
        try:
            await self._handler(method, message.get("params"), True)
        except RequestError as exc:  # a notification agentls does not know: no one to tell
            log.warning("notification %s: %s %s", method, exc, exc.data)
        except Exception:
            log.exception("unhandled error while handling notification method=%s", method)

    # -- closing ---------------------------------------------------------------------------
    def _fail_pending(self, error: BaseException) -> None:
        pending, self._pending = list(self._pending.values()), {}
        for future in pending:
            if not future.done():
                future.set_exception(error)

    async def close(self) -> None:
        """Fails what waits for the client, stops the handlers still running, closes the pipe."""
        if self._transport.is_closing():
            return
        self._closed = True
        self._fail_pending(ConnectionError("Connection closed"))
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._transport.close()


def _hashable(value: Any) -> bool:
    return isinstance(value, int | str | float | bool | None)


class BlockingWriteTransport(asyncio.WriteTransport):
    """Writes straight to a file, for an output the event loop cannot watch (Windows's
    console handles, a regular file): each frame is one small write."""

    def __init__(self, out: BinaryIO) -> None:
        super().__init__()
        self._out = out
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._out.write(data)
        self._out.flush()

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True


def _read_in_a_thread(stdin: BinaryIO, reader: asyncio.StreamReader) -> None:
    """Feeds ``reader`` from ``stdin`` read in a thread of its own (a blocking read)."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        while data := stdin.readline():
            loop.call_soon_threadsafe(reader.feed_data, data)
        loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="acp-stdin", daemon=True).start()


async def stdio_connection(
    handler: Handler, protocol_out: BinaryIO, stdin: BinaryIO | None = None
) -> Connection:
    """A connection reading stdin and writing ``protocol_out`` (the process's fd 1, which
    ``protect_stdout`` set aside for the protocol). The event loop watches both when they
    are pipes (how an editor starts an agent); otherwise, and always on Windows (as the
    SDK did there), stdin is read in a thread and the output written directly."""
    loop = asyncio.get_running_loop()
    stdin = stdin if stdin is not None else sys.stdin.buffer
    reader = asyncio.StreamReader(limit=READ_LIMIT)
    watched = sys.platform != "win32"
    try:
        if not watched:
            raise ValueError("Windows: stdin is read in a thread")
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    except ValueError:  # not a pipe, a socket or a character device
        _read_in_a_thread(stdin, reader)
    try:
        if not watched:
            raise ValueError("Windows: the output is written directly")
        transport, pipe = await loop.connect_write_pipe(PipeProtocol, protocol_out)
    except ValueError:
        return Connection(handler, reader, BlockingWriteTransport(protocol_out), PipeProtocol())
    return Connection(handler, reader, transport, pipe)
