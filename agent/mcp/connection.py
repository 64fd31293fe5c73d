"""One connection to one MCP server: a local process over stdio, or a URL over
streamable HTTP (or the older HTTP+SSE transport).

The SDK's transports and ``ClientSession`` are async context managers built on anyio
task groups, which must be entered and exited in the same task, last in first out. So
each connection has one background task that owns them for their whole life; callers
hand it jobs through a queue and wait on a future. A dropped connection (a stdio server
that exited, an HTTP error) ends that task and fails what was in flight; the next call
starts a new task, which is the reconnect (for stdio: the restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp import ClientSession
from mcp import MCPError as SDKError
from mcp.client._transport import ReadStream, TransportStreams
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from agentls.agent.config.models import MCPServerConfig
from agentls.agent.config.userdirs import is_within
from agentls.agent.errors import MCPConnectionError, MCPToolCallError, PathTraversalError
from agentls.agent.mcp.approval import definition_digest
from agentls.agent.mcp.closing import ClosedOnExit
from agentls.agent.mcp.expand import expand, read_env_file
from agentls.agent.mcp.stdio import MARKER_VARIABLE, ProcessGroup, StderrLog
from agentls.agent.workspace import confine

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
        self,
        server: MCPServerConfig,
        *,
        connect_timeout: float = 10.0,
        call_timeout: float = 60.0,
        workspace: Path | None = None,
    ) -> None:
        self.server = server
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        #: Where ``${workspaceFolder}`` points and a stdio server runs by default.
        self.workspace = Path(workspace) if workspace is not None else Path.cwd()
        #: What the user approved (a workspace's server is gated just before this is
        #: built): a restart after its script changed must not run the new one unasked.
        self._approved = (
            definition_digest(server, self.workspace) if server.source == "workspace" else None
        )
        self.tools: list[types.Tool] = []
        #: The pid of the running stdio server (None for HTTP, or when not running).
        self.pid: int | None = None
        self._queue: asyncio.Queue[_Pending | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._lock = asyncio.Lock()
        self._auth_status: int | None = None
        self._stderr: StderrLog | None = None
        self._group: ProcessGroup | None = None
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
        """Connect (start the server, for stdio) if not connected; return its tools.

        Raises MCPConnectionError naming the server when it cannot be started or
        reached, refuses the token, or does not answer within the timeout.
        """
        async with self._lock:
            if self._closed:
                raise MCPConnectionError(f"MCP server {self.name!r}: the connection is closed")
            if self.connected:
                return self.tools
            await self._stop_task()
            opener = self._opener()
            loop = asyncio.get_running_loop()
            self._queue = asyncio.Queue()
            self._ready = loop.create_future()
            self._auth_status = None
            self._task = asyncio.create_task(
                self._own_session(opener, self._queue, self._ready), name=f"mcp:{self.name}"
            )
            try:
                await asyncio.wait_for(asyncio.shield(self._ready), self.connect_timeout)
            except TimeoutError:
                await self._stop_task()
                raise MCPConnectionError(
                    f"MCP server {self.name!r} ({self.server.where}) did not answer within "
                    f"{self.connect_timeout:g}s{self._stderr_hint()}"
                ) from None
            except MCPConnectionError:
                await self._stop_task()
                raise
            return self.tools

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``tool``; reconnects (restarts a stdio server) first if the last one dropped.

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
            if exc.code == types.CONNECTION_CLOSED and self.server.transport == "stdio":
                raise MCPConnectionError(f"{where}: {self._lost()}") from None
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
        """Close the session (in the task that opened it; a stdio server is stopped with
        everything it started) and stop reconnecting."""
        self._closed = True
        await self._stop_task()

    async def _submit(self, job: Job, limit: float) -> Any:
        if self._queue is None or self._task is None or self._task.done():
            raise MCPConnectionError(self._lost())
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
        started = self._ready is not None and self._ready.done() and not self._ready.cancelled()
        if graceful and started and queue is not None:
            # (A server still starting never reads the queue: it is cancelled right away.)
            queue.put_nowait(None)
            # A stdio server gets the SDK's grace (stdin closed, 2 s, SIGTERM, 2 s, SIGKILL)
            # and the sweep of its group (2 s), with room for a loaded machine.
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(task), 15.0)
        if not task.done():
            task.cancel()
            # asyncio.wait never raises the task's error, yet lets our own cancellation through.
            await asyncio.wait({task})
        if self._group is not None:
            # A cancelled close may have cut the SDK's shutdown short: end what is left.
            await self._group.end()

    def _note_response(self) -> Callable[[httpx2.Response], Awaitable[None]]:
        async def hook(response: httpx2.Response) -> None:
            if response.status_code in (401, 403):
                self._auth_status = response.status_code

        return hook

    # -- transports ---------------------------------------------------------------------

    def _opener(self) -> Callable[[contextlib.AsyncExitStack], Awaitable[TransportStreams]]:
        """The transport to open in the owning task, checked now so that a bad entry
        (unknown command, unset variable) fails with a message naming it."""
        if (
            self._approved is not None
            and definition_digest(self.server, self.workspace) != self._approved
        ):
            raise MCPConnectionError(
                f"MCP server {self.name!r}: its definition or a workspace file it runs changed "
                "since you approved it; it is not started again until you approve it anew"
            )
        if self.server.transport == "stdio":
            params = self._stdio_parameters()
            return lambda stack: self._open_stdio(stack, params)
        url = self._expand(self.server.url or "", "url")
        headers = {
            key: self._expand(value, f"headers.{key}") for key, value in self.server.headers.items()
        }
        token = resolve_token(self.server)
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if self.server.transport == "sse":
            return lambda stack: self._open_sse(stack, url, headers)
        return lambda stack: self._open_http(stack, url, headers)

    def _inside(self, value: str, where: str) -> Path:
        """``value`` relative to the workspace. A workspace's own server may only name
        files inside it: its ``env_file`` must not read the user's secrets elsewhere."""
        path = self.workspace / value
        if self.server.source == "workspace":
            # ``${workspaceFolder}/x`` expands to an absolute path inside the workspace.
            if os.path.isabs(value) and is_within(path, self.workspace):
                value = os.path.relpath(os.path.realpath(path), os.path.realpath(self.workspace))
            try:
                return confine(self.workspace, value)
            except PathTraversalError as exc:
                raise MCPConnectionError(
                    f"MCP server {self.name!r}: {where} {value!r} is outside the workspace "
                    f"({exc}); a workspace's server may only use files inside it"
                ) from None
        return path

    def _expand(self, value: str, where: str) -> str:
        return expand(value, server=self.name, where=where, workspace=self.workspace)

    def _stdio_parameters(self) -> StdioServerParameters:
        server = self.server
        env: dict[str, str] = {}
        if server.env_file:
            path = self._inside(self._expand(server.env_file, "env_file"), "env_file")
            env.update(read_env_file(path, server=self.name))
        env.update({key: self._expand(value, f"env.{key}") for key, value in server.env.items()})
        cwd = self._inside(self._expand(server.cwd, "cwd"), "cwd") if server.cwd else self.workspace
        if not cwd.is_dir():
            raise MCPConnectionError(
                f"MCP server {self.name!r}: its working directory {cwd} (cwd) does not exist"
            )
        command = self._expand(server.command or "", "command")
        # The child's PATH is ours unless the entry sets one; look it up the same way.
        search = env.get("PATH", os.environ.get("PATH", os.defpath))
        if os.sep in command:
            resolved = str(cwd / command) if not os.path.isabs(command) else command
            found = resolved if os.access(resolved, os.X_OK) and Path(resolved).is_file() else None
        else:
            found = shutil.which(command, path=search)
        if found is None:
            raise MCPConnectionError(
                f"MCP server {self.name!r}: command {command!r} not found"
                + ("" if os.sep in command else " on PATH")
                + " (is it installed?)"
            )
        args = [self._expand(arg, f"args[{i}]") for i, arg in enumerate(server.args)]
        return StdioServerParameters(command=found, args=args, env=env, cwd=cwd)

    async def _open_stdio(
        self, stack: contextlib.AsyncExitStack, params: StdioServerParameters
    ) -> TransportStreams:
        stderr = StderrLog(self.name)
        self._stderr = stderr
        await stderr.start()
        # Exit order is last in, first out: the session, then the SDK's transport (stdin
        # closed, the server ended), then whatever the server left behind, then the log.
        stack.push_async_callback(stderr.aclose)
        group = ProcessGroup(self.name)
        self._group = group
        stack.push_async_callback(group.end)
        marker = uuid.uuid4().hex
        params = params.model_copy(update={"env": {**(params.env or {}), MARKER_VARIABLE: marker}})
        try:
            streams = await stack.enter_async_context(stdio_client(params, errlog=stderr.writer))
        except OSError as exc:
            raise MCPConnectionError(
                f"MCP server {self.name!r}: cannot start {params.command}: {exc.strerror or exc}"
            ) from None
        stderr.child_started()
        pid = self.pid = await group.find(marker)
        stack.callback(self._forget_pid, pid)
        return streams

    def _forget_pid(self, pid: int | None) -> None:
        # Only the pid this session set: a session closing late (its task cancelled on a
        # loaded machine) must not erase the pid of the server that replaced it.
        if self.pid == pid:
            self.pid = None

    async def _open_http(
        self, stack: contextlib.AsyncExitStack, url: str, headers: dict[str, str]
    ) -> TransportStreams:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(self.connect_timeout, read=max(self.call_timeout, 300.0)),
                event_hooks={"response": [self._note_response()]},
            )
        )
        return await stack.enter_async_context(streamable_http_client(url, http_client=http))

    async def _open_sse(
        self, stack: contextlib.AsyncExitStack, url: str, headers: dict[str, str]
    ) -> TransportStreams:
        def factory(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(
                headers=headers,
                timeout=timeout,
                auth=auth,
                follow_redirects=True,
                event_hooks={"response": [self._note_response()]},
            )

        streams: TransportStreams = await stack.enter_async_context(
            sse_client(
                url,
                headers=headers,
                timeout=self.connect_timeout,
                sse_read_timeout=max(self.call_timeout, 300.0),
                httpx_client_factory=factory,
            )
        )
        return streams

    # -- the owning task ----------------------------------------------------------------

    async def _own_session(
        self,
        opener: Callable[[contextlib.AsyncExitStack], Awaitable[TransportStreams]],
        queue: asyncio.Queue[_Pending | None],
        ready: asyncio.Future[None],
    ) -> None:
        in_flight: set[_Pending] = set()
        failure: BaseException | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await opener(stack)
                watched = _WatchedReadStream(read)
                session = await stack.enter_async_context(ClientSession(watched, write))
                # A failure here is turned into a message below, once the stack has
                # closed: by then a stdio server's last stderr lines have been read.
                await session.initialize()
                self.tools = await _list_all_tools(session)
                ready.set_result(None)
                await self._serve(session, queue, in_flight, watched.ended)
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
            lost = MCPConnectionError(self._lost())
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
        ended: asyncio.Event,
    ) -> None:
        async def run(pending: _Pending) -> None:
            try:
                value = await pending.job(session)
            except asyncio.CancelledError:
                # Cancelled because the session is going away: the caller must hear that now,
                # not at its own timeout.
                if not pending.future.done():
                    pending.future.set_exception(MCPConnectionError(self._lost()))
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
        # The server's end of the stream closing (a stdio server that exited) ends the
        # session at once, so the next call starts a fresh one instead of failing.
        gone = asyncio.create_task(ended.wait())
        try:
            while True:
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({getter, gone}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    log.warning("MCP server %r: %s", self.name, self._lost())
                    # What was in flight failed with the stream; let it report that first.
                    if jobs:
                        await asyncio.wait(jobs, timeout=1.0)
                    break
                item = getter.result()
                if item is None:
                    break
                pending = item
                in_flight.add(pending)
                task = asyncio.create_task(run(pending))
                jobs.add(task)
                task.add_done_callback(jobs.discard)
        finally:
            gone.cancel()
            for task in list(jobs):
                task.cancel()
            if jobs:
                await asyncio.wait(jobs)

    def _lost(self) -> str:
        if self.server.transport != "stdio":
            return "the connection was lost"
        return "the server process stopped" + self._stderr_hint() + "; the next call restarts it"

    def _stderr_hint(self) -> str:
        tail = self._stderr.tail() if self._stderr is not None else ""
        return f" (its stderr: {tail})" if tail else ""

    def _connect_error(self, exc: BaseException) -> MCPConnectionError:
        if isinstance(exc, MCPConnectionError):
            return exc
        prefix = f"MCP server {self.name!r} ({self.server.where})"
        if self._auth_status is not None:
            hint = (
                f"check the token in ${self.server.token_env}"
                if self.server.token_env
                else "check its token (token_env) or headers"
            )
            return MCPConnectionError(
                f"{prefix} refused the credentials (HTTP {self._auth_status}): {hint}"
            )
        if self.server.transport == "stdio":
            if isinstance(exc, SDKError) and exc.code == types.CONNECTION_CLOSED:
                return MCPConnectionError(f"{prefix} exited before answering{self._stderr_hint()}")
            return MCPConnectionError(f"{prefix}: {_reason_of(exc)}{self._stderr_hint()}")
        if isinstance(exc, SDKError):
            return MCPConnectionError(f"{prefix}: {exc.message}")
        if isinstance(exc, httpx2.ConnectError):
            return MCPConnectionError(f"{prefix} is not reachable (connection refused)")
        return MCPConnectionError(f"{prefix}: {type(exc).__name__}: {exc}")


class _WatchedReadStream(ClosedOnExit):
    """The transport's read stream, noting when the server's side of it ends."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception]) -> None:
        self.inner = inner
        self.ended = asyncio.Event()

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self.inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self.ended.set()
            raise

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    def __getattr__(self, name: str) -> Any:
        # e.g. ``last_context``, which the SDK reads with getattr when a transport has it.
        return getattr(self.inner, name)


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


def _reason_of(exc: BaseException) -> str:
    if isinstance(exc, SDKError):
        return exc.message
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
