"""Which stdin the event loop reads itself, and the reader's end-of-input contract."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

from agentls.server.stdio import PipeReader, is_pipe


def test_only_a_pipe_is_read_by_the_loop(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"):
        assert is_pipe(pipe)
    (tmp_path / "f").write_bytes(b"")
    with (tmp_path / "f").open("rb") as regular:
        assert not is_pipe(regular)
    left, right = socket.socketpair()  # may be shared with stdout: not made non-blocking
    with left, right, left.makefile("rb") as sock:
        assert not is_pipe(sock)


async def test_pipe_reader_gives_pygls_empty_bytes_at_the_end() -> None:
    stream = asyncio.StreamReader()
    stream.feed_data(b"Content-Length: 5\r\n\r\nabc")
    stream.feed_eof()
    reader = PipeReader(stream)
    assert await reader.readline() == b"Content-Length: 5\r\n"
    assert await reader.readline() == b"\r\n"
    assert await reader.readexactly(5) == b"abc"  # cut short: what there was
    assert await reader.readline() == b""
    assert await reader.readexactly(3) == b""
