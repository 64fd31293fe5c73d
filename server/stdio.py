"""The LSP stream over stdin/stdout, read by the event loop itself.

pygls reads stdin through its thread pool: three hand-overs to a thread per message
(the header line, the blank line, the body), each a thread wake-up and, back on the
loop, a wait for the GIL. When stdin is a pipe (as every editor spawns a server) the
loop can read it directly, as pygls's own TCP server reads its socket; otherwise
(a terminal, a file, a socket shared with stdout) pygls's reader is kept, because
making the descriptor non-blocking could affect stdout too.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import threading
from typing import BinaryIO

from pygls.io_ import StdoutWriter, run_async
from pygls.server import JsonRPCServer

log = logging.getLogger(__name__)


class PipeReader:
    """pygls's reader interface on an asyncio stream: ``b""`` at the end, not an error."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError as cut:  # the client went away mid-message
            return cut.partial


def is_pipe(stream: BinaryIO) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):
        return False


def start_io(server: JsonRPCServer, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Serve the LSP stream on ``stdin``/``stdout`` until exit or end of input (as
    ``server.start_io``, which it falls back to when stdin is not a pipe)."""
    if not is_pipe(stdin):
        log.debug("stdin is not a pipe: pygls's reader reads it")
        server.start_io(stdin, stdout)
        return
    log.debug("stdin is a pipe: the event loop reads it")
    server._stop_event = stop = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout))

    async def serve() -> None:
        stream = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
        await run_async(
            stop_event=stop,
            reader=PipeReader(stream),
            protocol=server.protocol,
            logger=log,
            error_handler=server.report_server_error,
        )

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
