"""agentls's JSON-RPC connection for ACP, over real pipes: requests answered concurrently,
the agent's own requests awaited by id, errors as the SDK answered them, the end of input."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from agentls.acp_agent.protocol.connection import Connection, Handler, PipeProtocol, RequestError


@dataclass
class Peer:
    """The client's end: what it writes to the agent, and the frames the agent wrote."""

    connection: Connection
    to_agent: asyncio.StreamReader
    from_agent: asyncio.StreamReader

    def send(self, frame: dict[str, Any]) -> None:
        self.to_agent.feed_data((json.dumps({"jsonrpc": "2.0", **frame}) + "\n").encode())

    async def frame(self) -> dict[str, Any]:
        line = await asyncio.wait_for(self.from_agent.readline(), 30)
        assert line, "the agent's output ended"
        return dict(json.loads(line))


@asynccontextmanager
async def connected(handler: Handler) -> AsyncIterator[Peer]:
    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    transport, pipe = await loop.connect_write_pipe(PipeProtocol, os.fdopen(write_fd, "wb", 0))
    from_agent = asyncio.StreamReader()
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(from_agent), os.fdopen(read_fd, "rb", 0)
    )
    to_agent = asyncio.StreamReader()
    connection = Connection(handler, to_agent, transport, pipe)
    listening = asyncio.create_task(connection.listen())
    try:
        yield Peer(connection, to_agent, from_agent)
    finally:
        to_agent.feed_eof()
        await listening
        await connection.close()


async def test_a_slow_request_does_not_hold_up_the_next_one() -> None:
    release = asyncio.Event()

    async def handler(method: str, params: Any, notification: bool) -> Any:
        if method == "slow":
            await release.wait()
        if method == "release":
            release.set()
            return None
        return {"method": method}

    async with connected(handler) as peer:
        peer.send({"id": 1, "method": "slow", "params": {}})
        peer.send({"id": 2, "method": "fast", "params": {}})
        assert await peer.frame() == {"jsonrpc": "2.0", "id": 2, "result": {"method": "fast"}}
        peer.send({"method": "release", "params": {}})  # a notification: no answer
        assert await peer.frame() == {"jsonrpc": "2.0", "id": 1, "result": {"method": "slow"}}


async def test_errors_are_answered_with_the_sdks_codes_and_data() -> None:
    async def handler(method: str, params: Any, notification: bool) -> Any:
        if method == "refused":
            raise RequestError.invalid_params({"message": "no such session"})
        if method == "json":
            raise ValueError('{"reason": 1}')
        raise ValueError("boom")

    async with connected(handler) as peer:
        peer.send({"id": 1, "method": "refused", "params": {}})
        peer.send({"id": 2, "method": "json", "params": {}})
        peer.send({"id": 3, "method": "other", "params": {}})
        answers = {frame["id"]: frame["error"] for frame in [await peer.frame() for _ in range(3)]}
    assert answers[1] == {
        "code": -32602,
        "message": "Invalid params",
        "data": {"message": "no such session"},
    }
    assert answers[2] == {"code": -32603, "message": "Internal error", "data": {"reason": 1}}
    assert answers[3] == {"code": -32603, "message": "Internal error", "data": {"details": "boom"}}


async def test_the_agents_requests_are_numbered_and_answered_by_id() -> None:
    async def handler(method: str, params: Any, notification: bool) -> Any:
        return None

    async with connected(handler) as peer:
        first = asyncio.create_task(peer.connection.send_request("fs/read_text_file", {"p": 1}))
        second = asyncio.create_task(peer.connection.send_request("terminal/create", {"p": 2}))
        asked = [await peer.frame(), await peer.frame()]
        assert [(f["id"], f["method"], f["params"]) for f in asked] == [
            (0, "fs/read_text_file", {"p": 1}),
            (1, "terminal/create", {"p": 2}),
        ]
        # Answered out of order, one with an error.
        peer.send({"id": 1, "error": {"code": -32000, "message": "no terminal", "data": None}})
        peer.send({"id": 0, "result": {"content": "x"}})
        assert await first == {"content": "x"}
        with pytest.raises(RequestError) as refused:
            await second
        assert refused.value.code == -32000 and str(refused.value) == "no terminal"


async def test_at_the_end_of_input_what_waits_for_the_client_fails() -> None:
    async def handler(method: str, params: Any, notification: bool) -> Any:
        return None

    async with connected(handler) as peer:
        waiting = asyncio.create_task(peer.connection.send_request("session/request_permission"))
        await peer.frame()
        peer.to_agent.feed_eof()
        with pytest.raises(ConnectionError):
            await waiting
        with pytest.raises(ConnectionError):
            await peer.connection.send_notification("session/update", {})
