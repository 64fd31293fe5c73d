"""One connection to one remote MCP server, over the SDK's streamable-HTTP client.

The SDK's transport and ``ClientSession`` are async context managers built on anyio
task groups, which must be entered and exited in the same task. So each connection
has one background task that owns them for their whole life; callers hand it jobs
through a queue and wait on a future. A dropped connection ends that task and fails
what was in flight; the next call starts a new task, which is the reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx2
import mcp_types as types
from mcp import ClientSession
from mcp import MCPError as SDKError
from mcp.client.streamable_http import streamable_http_client

from agentls.agent.config import MCPServerConfig
from agentls.agent.errors import MCPConnectionError, MCPToolCallError

log = logging.getLogger(__name__)

T = TypeVar("T")
Job = Callable[[ClientSession], Awaitable[Any]]

#: Names of servers whose inline token was already warned about (once per process).
_warned_inline: set[str] = set()


def resolve_token(server: MCPServerConfig) -> str | None:
    """The Bearer token for ``server``, read now (so a rotated variable is picked up).

    Raises MCPConnectionError when ``token_env`` names a variable that is not set.
    Never logs the token itself.
    """
    if server.token_env:
        value = os.environ.get(server.token_env)
        if not value:
            raise MCPConnectionError(
                f"MCP server {server.name!r}: environment variable {server.token_env} "
                "(token_env) is not set"
            )
        return value
    if server.token is not None:
        if server.name not in _warned_inline:
            _warned_inline.add(server.name)
            log.warning(
                "MCP server %r uses an inline token in the config; prefer token_env", server.name
            )
        return server.token.get_secret_value()
    return None


@dataclass(eq=False)  # identity semantics: pending jobs live in a set
class _Pending:
    job: Job
    future: asyncio.Future[Any] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class MCPConnection:
    """A lazily (re)connected session with one MCP server."""

    def __init__(
        self, server: MCPServerConfig, *, connect_timeout: float = 10.0, call_timeout: float = 60.0
    ) -> None:
        self.server = server
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.tools: list[types.Tool] = []
        self._queue: asyncio.Queue[_Pending | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._lock = asyncio.Lock()
        self._auth_status: int | None = None
        self._closed = False

    @property
    def name(self) -> str:
        return self.server.name

    @property
    def connected(self) -> bool:
        return (
            self._task is not None
            and not self._task.done()
            and self._ready is not None
            and (self._ready.done() and self._ready.exception() is None)
        )

    async def connect(self) -> list[types.Tool]:
        """Connect (if not connected) and return the server's tools.

        Raises MCPConnectionError naming the server when it cannot be reached, refuses
        the token, or does not answer within the timeout.
        """
        async with self._lock:
            if self._closed:
                raise MCPConnectionError(f"MCP server {self.name!r}: the connection is closed")
            if self.connected:
                return self.tools
            await self._stop_task()
            token = resolve_token(self.server)
            loop = asyncio.get_running_loop()
            self._queue = asyncio.Queue()
            self._ready = loop.create_future()
            self._auth_status = None
            self._task = asyncio.create_task(
                self._own_session(token, self._queue, self._ready), name=f"mcp:{self.name}"
            )
            try:
                await asyncio.wait_for(asyncio.shield(self._ready), self.connect_timeout)
            except TimeoutError:
                await self._stop_task()
                raise MCPConnectionError(
                    f"MCP server {self.name!r} at {self.server.url} did not answer within "
                    f"{self.connect_timeout:g}s"
                ) from None
            except MCPConnectionError:
                await self._stop_task()
                raise
            return self.tools

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``tool``; reconnects first if the last connection dropped.

        A tool that reports ``isError`` raises MCPToolCallError; a lost connection or a
        timeout raises MCPConnectionError. Both name the server and the tool.
        """
        where = f"MCP tool {tool!r} on server {self.name!r}"
        try:
            await self.connect()
        except MCPConnectionError as exc:
            raise MCPConnectionError(f"{where}: cannot connect: {_reason(exc)}") from None

        async def job(session: ClientSession) -> types.CallToolResult:
            return await session.call_tool(tool, arguments, read_timeout_seconds=self.call_timeout)

        try:
            result: types.CallToolResult = await self._submit(job, self.call_timeout + 1.0)
        except TimeoutError:
            raise MCPConnectionError(
                f"{where} did not answer within {self.call_timeout:g}s"
            ) from None
        except SDKError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                raise MCPConnectionError(
                    f"{where} did not answer within {self.call_timeout:g}s"
                ) from None
            if exc.code in (types.INVALID_PARAMS, types.METHOD_NOT_FOUND):
                raise MCPToolCallError(f"{where} refused the call: {exc.message}") from None
            # Anything else at the protocol level (connection closed, session gone, HTTP
            # error) means this session is not worth keeping: the next call reconnects.
            await self._stop_task(graceful=False)
            raise MCPConnectionError(f"{where}: connection failed: {exc.message}") from None
        except MCPConnectionError as exc:
            await self._stop_task(graceful=False)
            raise MCPConnectionError(f"{where}: {_reason(exc)}") from None
        except Exception as exc:
            await self._stop_task(graceful=False)
            raise MCPConnectionError(
                f"{where}: connection failed: {type(exc).__name__}: {exc}"
            ) from None
        if result.is_error:
            from agentls.agent.mcp.render import render_result

            raise MCPToolCallError(f"{where} failed: {render_result(result, limit=4000)}")
        return result

    async def aclose(self) -> None:
        """Close the session (in the task that opened it) and stop reconnecting."""
        self._closed = True
        await self._stop_task()

    async def _submit(self, job: Job, limit: float) -> Any:
        if self._queue is None or self._task is None or self._task.done():
            raise MCPConnectionError("the connection was lost")
        pending = _Pending(job)
        await self._queue.put(pending)
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), limit)
        finally:
            if not pending.future.done():
                pending.future.cancel()

    async def _stop_task(self, *, graceful: bool = True) -> None:
        """End the owning task; ``graceful`` lets it close the session politely first."""
        task, queue = self._task, self._queue
        self._task = None
        self._queue = None
        if task is None or task.done():
            return
        if graceful and queue is not None:
            queue.put_nowait(None)
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(task), 3.0)
        if not task.done():
            task.cancel()
            # asyncio.wait never raises the task's error, yet lets our own cancellation through.
            await asyncio.wait({task})

    def _note_response(self) -> Callable[[httpx2.Response], Awaitable[None]]:
        async def hook(response: httpx2.Response) -> None:
            if response.status_code in (401, 403):
                self._auth_status = response.status_code

        return hook

    async def _own_session(
        self,
        token: str | None,
        queue: asyncio.Queue[_Pending | None],
        ready: asyncio.Future[None],
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        in_flight: set[_Pending] = set()
        failure: BaseException | None = None
        try:
            async with (
                httpx2.AsyncClient(
                    headers=headers,
                    timeout=httpx2.Timeout(
                        self.connect_timeout, read=max(self.call_timeout, 300.0)
                    ),
                    event_hooks={"response": [self._note_response()]},
                ) as http,
                streamable_http_client(self.server.url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                try:
                    await session.initialize()
                    self.tools = await _list_all_tools(session)
                except Exception as exc:
                    raise self._connect_error(exc) from None
                ready.set_result(None)
                await self._serve(session, queue, in_flight)
        except asyncio.CancelledError:
            failure = MCPConnectionError("the connection was closed")
            raise
        except BaseException as exc:
            failure = self._connect_error(_unwrap(exc)) if not ready.done() else exc
            if not ready.done():
                ready.set_exception(failure)
            else:
                log.info("MCP server %r: connection ended: %s", self.name, _unwrap(exc))
        finally:
            if not ready.done():
                ready.set_exception(failure or MCPConnectionError("the connection was closed"))
            # ready's exception may never be retrieved (a cancelled connect); mark it seen.
            if ready.done() and not ready.cancelled():
                ready.exception()
            lost = MCPConnectionError("the connection was lost")
            for pending in in_flight:
                if not pending.future.done():
                    pending.future.set_exception(lost)
            while not queue.empty():
                item = queue.get_nowait()
                if item is not None and not item.future.done():
                    item.future.set_exception(lost)

    async def _serve(
        self,
        session: ClientSession,
        queue: asyncio.Queue[_Pending | None],
        in_flight: set[_Pending],
    ) -> None:
        async def run(pending: _Pending) -> None:
            try:
                value = await pending.job(session)
            except asyncio.CancelledError:
                # Cancelled because the session is going away: the caller must hear that now,
                # not at its own timeout.
                if not pending.future.done():
                    pending.future.set_exception(MCPConnectionError("the connection was lost"))
                raise
            except Exception as exc:
                if not pending.future.done():
                    pending.future.set_exception(exc)
            else:
                if not pending.future.done():
                    pending.future.set_result(value)
            finally:
                in_flight.discard(pending)

        # Jobs run as tasks of this (owning) task's scope, so parallel tool calls do not
        # wait for each other; they are awaited below before the session closes.
        jobs: set[asyncio.Task[None]] = set()
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                pending = item
                in_flight.add(pending)
                task = asyncio.create_task(run(pending))
                jobs.add(task)
                task.add_done_callback(jobs.discard)
        finally:
            for task in list(jobs):
                task.cancel()
            if jobs:
                await asyncio.wait(jobs)

    def _connect_error(self, exc: BaseException) -> MCPConnectionError:
        if isinstance(exc, MCPConnectionError):
            return exc
        prefix = f"MCP server {self.name!r} at {self.server.url}"
        if self._auth_status is not None:
            hint = (
                f"check the token in ${self.server.token_env}"
                if self.server.token_env
                else "check its token (token_env)"
            )
            return MCPConnectionError(
                f"{prefix} refused the credentials (HTTP {self._auth_status}): {hint}"
            )
        if isinstance(exc, SDKError):
            return MCPConnectionError(f"{prefix}: {exc.message}")
        if isinstance(exc, httpx2.ConnectError):
            return MCPConnectionError(f"{prefix} is not reachable (connection refused)")
        return MCPConnectionError(f"{prefix}: {type(exc).__name__}: {exc}")


async def _list_all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server whose cursor never ends cannot hang the start
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _unwrap(exc: BaseException) -> BaseException:
    """The first real error inside anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__
