"""Workers: processes that run a module of this very copy of agentls over pipes (the model
worker, the symbol process): how they are launched. ``agentls.child_rpc`` talks to them."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

#: The folder holding the ``agentls`` package, so a child imports the same code as its
#: parent. Not resolved: through the source tree's links, the resolved path is the
#: repository root, which would make ``agent``, ``server`` and ``indexer`` importable as
#: top-level names.
CODE_ROOT = str(Path(__file__).parent.parent)

#: Children get a process group of their own (and are ended with it) where there are groups.
OWN_GROUP = hasattr(os, "killpg")


def module_command(module: str) -> list[str]:
    """``python -P -m module``: ``-P`` so that the current directory (a user's workspace,
    which may hold its own ``agent`` or ``server``) cannot shadow what we import."""
    return [sys.executable, "-P", "-m", module]


class PipedProcess:
    """A child process with asyncio streams on its stdin and stdout: what
    ``asyncio.subprocess.Process`` offers, started without asyncio's subprocess machinery.

    On Python 3.11, cancelling ``asyncio.create_subprocess_exec`` while it starts the
    process (a server told to exit just as it starts its symbol process) can leave the
    start waiting forever for an exit nobody watches, and the server never exits. Here
    the process is started synchronously (a fork and exec: milliseconds) and only its
    pipes are connected to the loop, so there is nothing to cancel half-way; its exit is
    polled, not watched by a thread.
    """

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
    ) -> None:
        self._popen = popen
        self.stdin = stdin
        self.stdout = stdout

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        # Polled on purpose: no waiter thread or watcher to leave behind (see above).
        while (code := self._popen.poll()) is None:  # noqa: ASYNC110
            await asyncio.sleep(EXIT_POLL_SECONDS)
        return code

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._popen.kill()


#: How often a waited-for child is asked whether it exited.
EXIT_POLL_SECONDS = 0.02


async def start_piped(
    command: Sequence[str], line_limit: int, *, name: str, error: type[Exception]
) -> PipedProcess:
    """Start ``command`` with pipes on stdin and stdout (stderr is this process's: its
    log), able to import this agentls, in a process group of its own so that whatever it
    starts can be ended with it. Raises ``error`` ("could not start ``name``: why") when
    it cannot be started."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [CODE_ROOT, env.get("PYTHONPATH")]))
    try:
        # Synchronous on purpose: a start that cannot be cancelled half-way (see above).
        popen = subprocess.Popen(  # noqa: ASYNC220
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            # POSIX only; elsewhere the child alone is ended (see child_rpc.WorkerProcess.kill).
            process_group=0 if OWN_GROUP else None,
        )
    except OSError as exc:
        raise error(f"could not start {name}: {exc}") from None
    assert popen.stdin is not None and popen.stdout is not None
    loop = asyncio.get_running_loop()
    try:
        reader = asyncio.StreamReader(limit=line_limit, loop=loop)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop), popen.stdout
        )
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, popen.stdin
        )
    except BaseException:
        # Cancelled or failed while connecting its pipes: it must not outlive this.
        popen.kill()
        popen.stdin.close()
        popen.stdout.close()
        raise
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return PipedProcess(popen, writer, reader)
