"""Requests to a child process of this agentls over its stdin and stdout: the one layer
under the model worker's client (``agent/llm/worker_client.py``) and the symbol process's
(``indexer/symbols_client.py``). It lives here, beside ``children.py``, because both
``agent/`` and ``indexer/`` use it and neither may import the other.

**Framing: one JSON object a line, both ways** (``child_wire.py``), ASCII-only so no
newline can hide inside a value. pygls's ``JsonRPCClient`` over the child's stdio (as
esbonio drives Sphinx) was the alternative, and lost on four counts. The child would
have to run a pygls server: importing ``pygls.protocol`` costs ~0.6 s and ~29 MB in each
child (measured: 39 MB against 10 MB for ``json``), while the symbol process whole is
~30 MB. ``agent/`` must not import pygls, and the model worker's client is in ``agent/``.
JSON-RPC has no streamed answers, so a stream's hundreds of chunks a second would become
notifications that pygls logs and converts one by one on the server's event loop. And
its writer reports a broken pipe only to the log and fails every pending request alike
when the child exits, which loses the difference between a request the child never
read and one it died on (below).

The envelope (the children's own fields go beside these keys; ``agent/llm/wire.py`` and
``indexer/symbols_process.py`` describe them)::

    parent -> child  {"id": 7, "op": "..."}          a request, answered by frames with its id
                     {"op": "..."}                   a notice: no id, no answer
                     {"id": 7, "op": "cancel"}       the parent stopped listening to request 7
    child -> parent  {"id": 7, ...}                  a frame of request 7 (the child's protocol
                                                     says how many and which one is last)
                     {"kind": "ready"}               ready for work (only children that say so)
                     {"kind": "log", "level": 30, "name": "...", "message": "..."}
                                                     a record for this process's log handlers

**Restart.** A child is started on first use (or by ``start``/``wait_ready`` ahead of
it) and a dead one is started again on the next request. Each child has its own table of
pending requests: when its output ends, only the requests it was sent fail, with
``WorkerExited`` (it may have acted on them). A request whose writing fails (its end of
the pipe is closed: it died, even if the event loop has not heard so yet) never reached
it: that child is killed and the request goes to a new child, once. A process's pipes
belong to the event loop that started it: a new loop gets a new child.

**Close.** ``close`` (for good) and the idle stop (restartable) end a child the same
way: its stdin closed, so it exits at end of input, then after a grace period its whole
process group killed, so nothing it started is left behind. The reader never waits for
the child when cancelled (the loop ending): the child exits once this process closes its
stdin, which is after the loop.

**Idle.** With ``idle_seconds``, a child that was ready and had no request open, no
writer and no ``hold()`` for that long is stopped; the next request starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from agentls.child_wire import MAX_LINE_BYTES, Frame, decode, encode
from agentls.children import OWN_GROUP, PipedProcess, start_piped

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How long a child may take to exit once its stdin is closed, before its group is killed.
EXIT_GRACE_SECONDS = 2.0


class WorkerExited(Exception):
    """The child exited while a request was in its hands; it may have acted on it."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"the child process exited (code {code})")
        self.code = code


class _Undelivered(Exception):
    """Writing failed: the child never saw the frame."""


class Call:
    """The frames a child sends for one request, in order; ``close`` when done."""

    def __init__(self, child: WorkerProcess, call_id: int) -> None:
        self.id = call_id
        self._child = child
        self._frames: asyncio.Queue[Frame | WorkerExited] = asyncio.Queue()
        self._closed = False

    async def next(self) -> Frame:
        """The next frame; ``WorkerExited`` once the child is gone."""
        item = await self._frames.get()
        if isinstance(item, WorkerExited):
            self._frames.put_nowait(item)  # every later ``next`` says so too
            raise WorkerExited(item.code)
        return item

    def close(self, *, cancel: bool = False) -> None:
        """Done with this request (idempotent); ``cancel`` asks the child to stop it."""
        if self._closed:
            return
        self._closed = True
        if self._child.pending.pop(self.id, None) is not None and cancel:
            self._child.send_nowait({"id": self.id, "op": "cancel"})
        self._child.rpc.idle_clock(-1)


class WorkerProcess:
    """One process and what belongs to it alone: its pending requests and its reader."""

    def __init__(self, rpc: WorkerRPC, process: PipedProcess) -> None:
        self.rpc = rpc
        self.process = process
        self.pending: dict[int, Call] = {}
        self.ready = asyncio.Event()
        #: Set when this process ends it: its exit is no surprise worth a warning.
        self.ending = False
        self.broken = False
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @property
    def alive(self) -> bool:
        return not self.broken and self.process.returncode is None and not self.reader.done()

    async def request(self, frame: Mapping[str, Any]) -> Call:
        """Send ``frame`` as request with a new id; its frames arrive on the call."""
        call = Call(self, next(self.rpc.ids))
        data = encode({"id": call.id, **frame})
        # Registered before writing: if the child dies from now on, the reader fails
        # this call, so it can never wait forever.
        self.pending[call.id] = call
        self.rpc.idle_clock(+1)
        try:
            await self.write(data)
        except BaseException:
            call.close()
            raise
        return call

    async def write(self, data: bytes) -> None:
        """``data`` (whole lines) to the child; ``_Undelivered`` if it cannot read it."""
        stdin = self.process.stdin
        try:
            if not self.alive or stdin is None or stdin.is_closing():
                raise ConnectionResetError("its input is closed")
            stdin.write(data)
            # A write the pipe refused closes the stream at once, but asyncio reports
            # it to the stream a few loop turns later: drain() alone would not see it.
            if stdin.is_closing():
                raise ConnectionResetError("its input is closed")
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            # Its end of the pipe is closed, so it is dead or dying, even when it has
            # not been reaped yet: a new child gets the request rather than this one.
            self.broken = True
            self.kill()
            raise _Undelivered(f"{self.rpc.name} stopped reading: {exc}") from None

    def send_nowait(self, frame: Mapping[str, Any]) -> None:
        """A short notice, written without waiting and only if the child still runs."""
        stdin = self.process.stdin
        if self.alive and stdin is not None and not stdin.is_closing():
            with contextlib.suppress(ConnectionError, RuntimeError):
                stdin.write(encode(frame))

    def kill(self) -> None:
        """The child and whatever it started (its process group), at once."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if OWN_GROUP:
                os.killpg(self.process.pid, signal.SIGKILL)
            elif self.process.returncode is None:
                self.process.kill()

    async def end(self) -> None:
        """Graceful first (stdin closed: it exits at end of input), then its group killed."""
        self.ending = True
        if self.process.stdin is not None:
            self.process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), EXIT_GRACE_SECONDS)
        self.kill()  # the child if it lingers, and anything it started either way
        await self.process.wait()
        await asyncio.gather(self.reader, return_exceptions=True)

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        code: int | None = None
        try:
            while True:
                try:
                    line = await stdout.readline()
                except ValueError:  # a frame over the limit: its request can only fail
                    log.error(
                        "%s: a frame over %d bytes was dropped", self.rpc.name, MAX_LINE_BYTES
                    )
                    continue
                if not line:
                    break
                try:
                    frame = decode(line)
                except ValueError:
                    log.error("%s: unreadable output %.200r", self.rpc.name, line)
                    continue
                self._dispatch(frame)
            # Its stdout closed: the child is exiting (it was ended, or it failed).
            code = await self.process.wait()
        finally:
            # Also when cancelled (the loop ending), and then without waiting for the
            # child: it exits only once this process closes its stdin.
            self.rpc.child_ended(self, code)

    def _dispatch(self, frame: Frame) -> None:
        call_id = frame.get("id")
        if isinstance(call_id, int):
            call = self.pending.get(call_id)
            if call is not None:  # else: a request its caller gave up on
                call._frames.put_nowait(frame)
        elif frame.get("kind") == "log":
            level = frame.get("level")
            logging.getLogger(str(frame.get("name") or __name__)).log(
                level if isinstance(level, int) else logging.WARNING,
                "%s",
                frame.get("message", ""),
            )
        elif frame.get("kind") == "ready":
            self.ready.set()
            self.rpc.idle_clock(0)
        else:
            log.warning("%s: a frame of no request was ignored: %.200r", self.rpc.name, frame)


Write = Callable[[WorkerProcess], Awaitable[T]]


class WorkerRPC:
    """Requests to one child process at a time, started with ``command``.

    ``error`` is the exception callers get when there is no child to ask (it cannot be
    started, it was closed, the request could not be delivered twice). A child that
    ``announces_ready`` is ready once it sent ``{"kind": "ready"}``; any other, once
    started. ``on_start`` is called for each new child (it knows nothing yet).
    ``idle_seconds`` (read each time the idle clock starts; 0: never) ends an idle child.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        name: str,
        error: type[Exception],
        announces_ready: bool = False,
        on_start: Callable[[], None] | None = None,
        idle_seconds: Callable[[], float] | None = None,
    ) -> None:
        self.name = name
        self.ids = itertools.count(1)
        self._command = list(command)
        self._error = error
        self._announces_ready = announces_ready
        self._on_start = on_start
        self._idle_seconds = idle_seconds
        self._child: WorkerProcess | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False
        #: Open requests, writers and holds: while any, the child is not idle.
        self._busy = 0
        self._idle_timer: asyncio.TimerHandle | None = None
        self._ending: set[asyncio.Task[None]] = set()

    @property
    def pid(self) -> int | None:
        """The current child's process id, if there is one."""
        return self._child.process.pid if self._child is not None else None

    @property
    def running(self) -> bool:
        """Whether a child process is up (it may still be getting ready)."""
        return self._child is not None and self._child.alive

    @property
    def is_ready(self) -> bool:
        """Whether a child is up and ready for work."""
        return self.running and self._child is not None and self._child.ready.is_set()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- use ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the child unless it runs (concurrent callers share one)."""
        await self._started()

    async def wait_ready(self) -> None:
        """Until the child is ready (starting it if needed)."""
        child = await self._started()
        ready = asyncio.ensure_future(child.ready.wait())
        try:
            await asyncio.wait({ready, child.reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        if not child.ready.is_set():
            raise self._error(f"{self.name} exited while starting; see the server log")
        self.idle_clock(0)  # a sign of use: the idle clock starts again

    async def send(self, write: Write[T]) -> T:
        """``write`` on the running child (started if needed), under the lock that keeps
        each writer's lines together. If the child's pipe turns out broken, nothing
        reached it: ``write`` runs again, once, on a new child."""
        async with self._locked():
            self.idle_clock(+1)
            try:
                for attempt in range(2):
                    child = await self._ensure()
                    try:
                        return await write(child)
                    except _Undelivered as exc:
                        if attempt:
                            raise self._error(str(exc)) from None
                        log.info("%s; a new one gets the request", exc)
                raise AssertionError("unreachable")
            finally:
                self.idle_clock(-1)

    async def call(
        self,
        op: str,
        fields: Mapping[str, Any] | None = None,
        *,
        before: Write[None] | None = None,
    ) -> Call:
        """Send request ``op`` (after ``before``, on the same child); read its frames
        from the returned call and close it."""

        async def write(child: WorkerProcess) -> Call:
            if before is not None:
                await before(child)
            return await child.request({"op": op, **(fields or {})})

        return await self.send(write)

    async def ask(
        self,
        op: str,
        fields: Mapping[str, Any] | None = None,
        *,
        before: Write[None] | None = None,
    ) -> Frame:
        """Request ``op`` and its first frame (for children that answer once)."""
        call = await self.call(op, fields, before=before)
        try:
            return await call.next()
        finally:
            call.close()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """While held, the child is not stopped for being idle (it is not started either)."""
        self.idle_clock(+1)
        try:
            yield
        finally:
            self.idle_clock(-1)

    async def close(self) -> None:
        """End the child for good: later requests fail with ``error``."""
        self._closed = True
        self._stop_idle_timer()
        child, self._child = self._child, None
        if child is not None:
            await child.end()
        if self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)

    # -- the child ---------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None:
                # A process's pipes belong to the loop that started it: a new loop (a
                # new test, a restarted server) gets a new child, and what was busy on
                # the old one never ends on this one.
                if self._child is not None:
                    self._child.kill()
                self._child, self._busy, self._idle_timer = None, 0, None
            self._loop, self._lock = loop, asyncio.Lock()
        assert self._lock is not None
        async with self._lock:
            yield

    async def _started(self) -> WorkerProcess:
        async with self._locked():
            return await self._ensure()

    async def _ensure(self) -> WorkerProcess:
        """The running child, started if there is none (under the lock)."""
        if self._closed:
            raise self._error(f"{self.name} was closed")
        child = self._child
        if child is not None and child.alive:
            return child
        process = await start_piped(
            self._command, MAX_LINE_BYTES, name=self.name, error=self._error
        )
        child = self._child = WorkerProcess(self, process)
        log.debug("%s started (pid %d)", self.name, process.pid)
        if not self._announces_ready:
            child.ready.set()
        if self._on_start is not None:
            self._on_start()
        return child

    def child_ended(self, child: WorkerProcess, code: int | None) -> None:
        """The reader of ``child`` ended: its pending requests fail, the next starts anew."""
        if self._child is child:
            self._child = None
            self._stop_idle_timer()
        if code is not None and not (child.ending or self._closed):
            log.warning("%s exited (code %s); the next request starts a new one", self.name, code)
        for call in list(child.pending.values()):
            call._frames.put_nowait(WorkerExited(code))

    # -- idleness ----------------------------------------------------------------------
    def idle_clock(self, change: int) -> None:
        """``+1``/``-1``: a request, writer or hold begins or ends; ``0``: the clock
        starts again from now. The clock runs while nothing is busy and a child is ready."""
        self._busy = max(0, self._busy + change)  # what ended on a former loop: not below 0
        self._stop_idle_timer()
        child, loop = self._child, self._loop
        if self._busy or self._idle_seconds is None or child is None or loop is None:
            return
        seconds = self._idle_seconds()
        if seconds > 0 and child.ready.is_set():
            self._idle_timer = loop.call_later(seconds, self._idle_expired, child)

    def _stop_idle_timer(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None

    def _idle_expired(self, child: WorkerProcess) -> None:
        self._idle_timer = None
        if self._child is not child or self._busy or self._loop is None:
            return
        log.info("%s was idle: stopped (the next request starts it again)", self.name)
        self._child = None  # from now on, a request starts a new child
        task = self._loop.create_task(child.end())
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)
