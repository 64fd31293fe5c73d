"""What a local (stdio) MCP server needs besides the SDK's transport.

- Its stderr goes to our log, line by line, and the last lines are kept for the error
  message when it fails to start or dies. The SDK hands ``errlog`` to the child as its
  fd 2, so it must be a real file: a pipe whose read end this process drains.
- Nothing it started may outlive it. The SDK runs it as the leader of a new session
  and kills the process group only when the leader does not exit after its stdin
  closes; a leader that exits (or crashed) leaves its children running. So the group is
  swept after every session, and once more when the process itself exits
  (``end_all_groups``). The leader is found among our children by a marker in its
  environment, since the SDK does not expose the process.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import signal
import time
from pathlib import Path
from typing import TextIO

log = logging.getLogger(__name__)
#: The logger that carries the servers' own stderr lines.
server_log = logging.getLogger("agentls.mcp.server")

#: Set in each server's environment to find its process among ours.
MARKER_VARIABLE = "AGENTLS_MCP_SERVER"

#: Process groups of live servers (pgid: server name), for ``end_all_groups``.
_live_groups: dict[int, str] = {}

_TERM_GRACE_SECONDS = 2.0


class StderrLog:
    """A pipe for one server's stderr: each line to the log, the last ones kept."""

    def __init__(self, server: str, *, keep: int = 20) -> None:
        self.server = server
        self.lines: collections.deque[str] = collections.deque(maxlen=keep)
        read_fd, write_fd = os.pipe()
        self._read = os.fdopen(read_fd, "rb", buffering=0)
        #: Handed to the SDK as ``errlog``; closed here once the child holds its copy.
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8")
        self._transport: asyncio.ReadTransport | None = None
        self._partial = b""
        self._eof = asyncio.Event()

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._transport, _ = await loop.connect_read_pipe(lambda: _Reader(self), self._read)

    def child_started(self) -> None:
        """The child has its own copy of the write end: drop ours, so EOF means it is gone."""
        with contextlib.suppress(OSError):
            self.writer.close()

    def tail(self, count: int = 3) -> str:
        """The last lines the server wrote, joined, or ''."""
        return " | ".join(list(self.lines)[-count:])

    def feed(self, data: bytes) -> None:
        *complete, self._partial = (self._partial + data).split(b"\n")
        for line in complete:
            self._emit(line)
        if len(self._partial) > 16_384:  # a server that never ends its line
            self._emit(self._partial)
            self._partial = b""

    def eof(self) -> None:
        if self._partial:
            self._emit(self._partial)
            self._partial = b""
        self._eof.set()

    def _emit(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace").rstrip()
        if line:
            self.lines.append(line[:500])
            server_log.info("[mcp %s] %s", self.server, line)

    async def aclose(self, *, wait: float = 0.5) -> None:
        """Stop reading: after what is left in the pipe (bounded by ``wait``) has been logged."""
        self.child_started()
        if self._transport is None:
            with contextlib.suppress(OSError):
                self._read.close()
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._eof.wait(), wait)
        self._transport.close()


class _Reader(asyncio.Protocol):
    def __init__(self, sink: StderrLog) -> None:
        self.sink = sink

    def data_received(self, data: bytes) -> None:
        self.sink.feed(data)

    def eof_received(self) -> bool | None:
        self.sink.eof()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.sink.eof()


class ProcessGroup:
    """The process group of one running server (known once it has started)."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.pgid: int | None = None

    async def find(self, marker: str) -> int | None:
        """Find the server among our children by ``marker``; remembers it for ``end``."""
        pid = await asyncio.to_thread(find_child, marker)
        if pid is not None:
            self.pgid = pid  # a session leader's pid is its process group's id
            _live_groups[pid] = self.server
        return pid

    async def end(self) -> None:
        """SIGTERM what is left of the group, SIGKILL it after a grace period.

        Idempotent. The group is forgotten only once it is gone, so a second call (the
        connection's, after its owning task ended) finishes a sweep that was cut short.
        """
        pgid = self.pgid
        if pgid is None:
            return
        if _group_alive(pgid):
            log.info("MCP server %r left processes behind; ending them", self.server)
            # The thread runs to the end even if this task is cancelled meanwhile.
            await asyncio.to_thread(end_group, pgid)
        self.pgid = None
        _live_groups.pop(pgid, None)


def end_group(pgid: int, grace: float = _TERM_GRACE_SECONDS) -> None:
    """Blocking: end every process of the group ``pgid``."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def end_all_groups() -> None:
    """At process exit: end every server still running (the SDK's own shutdown never ran).

    Synchronous and quick (SIGTERM, a short grace, SIGKILL), for exits that skip the
    event loop's cleanup.
    """
    groups = list(_live_groups)
    _live_groups.clear()
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + 1.0
    while any(_group_alive(pgid) for pgid in groups) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def find_child(marker: str) -> int | None:
    """The pid of our child process whose environment holds ``MARKER_VARIABLE=marker``.

    Linux only (reads /proc); elsewhere None, and the SDK's own shutdown is all there is.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    me = os.getpid()
    wanted = f"{MARKER_VARIABLE}={marker}".encode()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes()
            # Fields after the command name (which may hold spaces): state ppid pgrp ...
            fields = stat.rsplit(b")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                return int(entry.name)
        except (OSError, IndexError, ValueError):
            continue
    return None
