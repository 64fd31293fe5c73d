"""Running one child process for a tool: own process group, timeout, cancel, bounded output.

Every command starts a new session (``start_new_session=True``), so its process
id is also its process-group id and everything it spawns shares that group unless
it deliberately leaves it. The whole group is ended (SIGTERM, a short grace, then
SIGKILL) when the command times out, when the awaiting task is cancelled, and when
the main process exits while background children are still running: a tool call
never leaves processes behind.

Also here: the environment a child gets (secrets stripped), redaction of secret
values from output, and the probes that find which files a command changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agentls.agent.config.models import IndexerConfig
from agentls.agent.indexing import workspace_rules
from agentls.agent.secrets import is_secret_variable, mask_outward
from agentls.indexer.walker import list_candidates

DEFAULT_MAX_OUTPUT = 32_000
DEFAULT_GRACE = 2.0
_READ_CHUNK = 65_536
_POLL = 0.05


# -- process groups --------------------------------------------------------------------
def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``, from /proc."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        # The command name (field 2) may hold spaces and parentheses: split after it.
        fields = data[data.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and fields[0] != b"Z" and fields[2] == str(pgid).encode():
            members.append(int(entry))
    return members


def _signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _wait_group_gone(pgid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while group_members(pgid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL)
    return True


async def kill_group(pgid: int, grace: float = DEFAULT_GRACE) -> None:
    """SIGTERM the group, give it ``grace`` seconds, then SIGKILL what is left."""
    try:
        if not _signal_group(pgid, signal.SIGTERM):
            return
        if await _wait_group_gone(pgid, grace):
            return
        _signal_group(pgid, signal.SIGKILL)
        await _wait_group_gone(pgid, 10.0)
    finally:
        # Cancelled while waiting (a second cancel): never leave the group running.
        if group_members(pgid):
            _signal_group(pgid, signal.SIGKILL)


# -- output ----------------------------------------------------------------------------
class OutputBuffer:
    """Keeps the first and the last bytes of a stream and counts what it drops.

    The tail gets the larger share: errors and summaries come at the end.
    """

    def __init__(self, limit: int = DEFAULT_MAX_OUTPUT) -> None:
        self.head_limit = max(limit // 4, 0)
        self.tail_limit = max(limit - self.head_limit, 0)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.dropped = 0
        self.dropped_lines = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.tail_limit
        if excess > 0:
            self.dropped += excess
            self.dropped_lines += self.tail.count(b"\n", 0, excess)
            del self.tail[:excess]

    def text(self) -> str:
        head = bytes(self.head).decode("utf-8", errors="replace")
        tail = bytes(self.tail).decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        cut = (
            f"\n[... {self.dropped} bytes ({self.dropped_lines} lines) of output cut; "
            f"{self.total} bytes in all ...]\n"
        )
        return head + cut + tail


@dataclass(frozen=True)
class ProcessResult:
    exit_code: int | None
    output: str
    timed_out: bool
    duration: float
    output_bytes: int
    truncated_bytes: int
    #: Processes still running in the group after the main one exited (then stopped).
    stragglers: int = 0


async def _pump(
    stream: asyncio.StreamReader,
    buffer: OutputBuffer,
    on_output: Callable[[bytes], None] | None = None,
) -> None:
    while True:
        chunk = await stream.read(_READ_CHUNK)
        if not chunk:
            return
        buffer.feed(chunk)
        if on_output is not None:
            on_output(chunk)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    # Not proc.wait(): on 3.11 it also waits for the pipes to close, which a
    # background child holding stdout delays until it ends (possibly never).
    while proc.returncode is None:  # noqa: ASYNC110 - no event exists to wait on
        await asyncio.sleep(_POLL)


async def _feed_stdin(stdin: asyncio.StreamWriter, data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
    stdin.close()


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    time_limit: float,
    stdin_data: bytes | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    grace: float = DEFAULT_GRACE,
    on_output: Callable[[bytes], None] | None = None,
) -> ProcessResult:
    """Run ``argv`` (stdout and stderr interleaved) and always leave no process behind.
    ``on_output`` gets the output as it comes, all of it (the result keeps the ends).

    Re-raises ``CancelledError`` after the group is gone. Raises ``OSError`` when the
    program cannot be started.
    """
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        env=dict(env) if env is not None else None,
        stdin=asyncio.subprocess.PIPE if stdin_data is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    pgid = proc.pid
    buffer = OutputBuffer(max_output)
    assert proc.stdout is not None
    helpers = [asyncio.create_task(_pump(proc.stdout, buffer, on_output))]
    if stdin_data is not None and proc.stdin is not None:
        helpers.append(asyncio.create_task(_feed_stdin(proc.stdin, stdin_data)))
    timed_out = False
    stragglers = 0
    try:
        try:
            async with asyncio.timeout(time_limit):
                await _exited(proc)
        except TimeoutError:
            timed_out = True
        if not timed_out:
            stragglers = len(group_members(pgid))
        if timed_out or stragglers:
            await kill_group(pgid, grace)
        await _exited(proc)
        # The pipe closes once every holder is gone; one that left the group (setsid)
        # may keep it open, so do not wait for it forever.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await asyncio.gather(*helpers, return_exceptions=True)
    except asyncio.CancelledError:
        _signal_group(pgid, signal.SIGTERM)
        await kill_group(pgid, grace)
        raise
    finally:
        for task in helpers:
            task.cancel()
        if group_members(pgid):
            _signal_group(pgid, signal.SIGKILL)
    return ProcessResult(
        exit_code=proc.returncode,
        output=buffer.text(),
        timed_out=timed_out,
        duration=time.monotonic() - started,
        output_bytes=buffer.total,
        truncated_bytes=buffer.dropped,
        stragglers=stragglers,
    )


# -- environment -------------------------------------------------------------------------
#: Read by non-interactive shells at start-up: would run code before the command.
_STARTUP_VARS = frozenset({"BASH_ENV", "ENV", "PROMPT_COMMAND"})


def child_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a command gets: ours, minus secrets and shell start-up hooks.

    Secrets are dropped because whatever a command prints goes to the model (and its
    provider): ``env`` must not leak the API key. A secret is a variable whose name looks
    secret or one the config names as holding the key (``llm.api_key_env``, whatever its
    name: ``agent.secrets.is_secret_variable``).
    """
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not is_secret_variable(k) and k not in _STARTUP_VARS}
    env.setdefault("PATH", os.defpath)
    # Nobody can answer a pager or a prompt: a command must never wait for a human.
    env.update({"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb"})
    return env


def redact(text: str) -> str:
    """``text`` through the outward pass (``agent.secrets.mask_outward``)."""
    return mask_outward(text)


# -- which files a command changed ---------------------------------------------------------
@runtime_checkable
class ProcessRunner(Protocol):
    """Where a tool's command runs when not here: an editor's own terminal, say. It gets
    the command as given (the editor's terminal is not sandboxed by agentls) and answers
    like ``run_process``."""

    async def __call__(
        self, argv: Sequence[str], *, cwd: Path, time_limit: float
    ) -> ProcessResult: ...


class ChangesProbe(Protocol):
    """Finds the files changed between two moments (the live index offers one)."""

    async def snapshot(self) -> Any: ...

    async def changed_since(self, snapshot: Any) -> list[str]: ...


_Stamp = tuple[int, int, int]


class FileSnapshotProbe:
    """Self-contained probe: mtime, size and inode of up to ``max_files`` files.

    Used when no live index is running (headless). It stamps the files the index would
    hold (``workspace_rules``: the excludes and ``.gitignore``), so a headless run names
    the same changed files as the server, whose watcher follows those rules. Beyond
    ``max_files`` changes go unnoticed (``truncated``).
    """

    def __init__(self, root: Path, indexer: IndexerConfig, *, max_files: int = 20_000) -> None:
        self.root = Path(os.path.realpath(root))
        self.indexer = indexer
        self.max_files = max_files
        self.truncated = False

    def _scan(self) -> dict[str, _Stamp]:
        # Fresh rules each time: the command may have changed a .gitignore.
        rules = workspace_rules(self.root, self.indexer)
        listed, _ = list_candidates(self.root, rules, use_git=rules.settings.use_git)
        self.truncated = len(listed) > self.max_files
        stamps: dict[str, _Stamp] = {}
        for rel in listed[: self.max_files]:
            try:
                info = os.stat(self.root / rel, follow_symlinks=False)
            except OSError:
                continue  # listed by git but deleted from the work tree
            stamps[rel] = (info.st_mtime_ns, info.st_size, info.st_ino)
        return stamps

    async def snapshot(self) -> dict[str, _Stamp]:
        return await asyncio.to_thread(self._scan)

    async def changed_since(self, snapshot: Any) -> list[str]:
        before: dict[str, _Stamp] = snapshot
        after = await asyncio.to_thread(self._scan)
        changed = {p for p, stamp in after.items() if before.get(p) != stamp}
        changed |= before.keys() - after.keys()
        return sorted(changed)
