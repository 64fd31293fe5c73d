"""The child-process layer under the model worker and the symbol process, against a tiny
real child (tests/fixtures/rpc_child.py): requests by id, streams, readiness, the restart
policy (a request the child never read goes to a new child once; one it died on fails),
cancel, forwarded logs, closing (gracefully, then its whole process group), and the idle
stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from agentls.child_rpc import WorkerExited, WorkerProcess, WorkerRPC
from agentls.child_wire import FrameError, decode, encode

CHILD = str(Path(__file__).resolve().parents[1] / "fixtures" / "rpc_child.py")
#: Generous: a shared machine can take seconds to start an interpreter.
WAIT = 60.0


class Unavailable(RuntimeError):
    """The error the tests' clients say "no child" with."""


def rpc(*flags: str, **options: object) -> WorkerRPC:
    return WorkerRPC(
        [sys.executable, CHILD, *flags],
        name="the test child",
        error=Unavailable,
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture
async def child() -> AsyncIterator[WorkerRPC]:
    it = rpc()
    yield it
    await it.close()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pid: int) -> None:
    """Block (not await: the event loop must not hear of it) until ``pid`` has exited, so
    its end of the pipe is closed. ``WNOWAIT`` leaves it to be reaped by the loop's child
    watcher, which may also have been first."""
    with contextlib.suppress(ChildProcessError):
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


async def until(condition: Callable[[], bool], what: str) -> None:
    """Poll ``condition``: the tests wait for states, never for a time."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not condition():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.02)


async def pid_of(child: WorkerRPC) -> int:
    return int((await child.ask("pid"))["result"])


def test_frames_are_single_ascii_lines_and_come_back_as_they_went() -> None:
    frame = {"id": 1, "kind": "chunk", "text": "line one\nligne deux é 你好"}
    line = encode(frame)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
    assert decode(line) == frame
    with pytest.raises(ValueError):
        decode(b"[1, 2]\n")
    with pytest.raises(ValueError):
        decode(b"not json\n")
    # A file name that is not UTF-8 travels as its surrogate escapes, and comes back.
    name = b"caf\xe9.py".decode("utf-8", "surrogateescape")
    assert decode(encode({"path": name}))["path"] == name
    circular: list[object] = []
    circular.append(circular)
    with pytest.raises(FrameError):  # what JSON cannot hold is the caller's error to name
        encode({"messages": circular})


async def test_requests_start_the_child_and_each_gets_its_own_answer(child: WorkerRPC) -> None:
    assert child.pid is None and not child.running  # nothing runs before the first use
    slow = asyncio.create_task(child.ask("slow", {"seconds": 0.5}))
    answers = await asyncio.gather(*(child.ask("echo", {"value": n}) for n in range(20)))
    assert [a["result"] for a in answers] == list(range(20))
    assert (await slow)["result"] == "slow"  # answered after the later ones, still its own
    assert child.running and child.pid == await pid_of(child)


async def test_a_stream_arrives_in_order_and_ends_with_its_last_frame(child: WorkerRPC) -> None:
    call = await child.call("stream", {"count": 50})
    frames = []
    try:
        while "result" not in (frame := await call.next()):
            frames.append(frame["chunk"])
    finally:
        call.close()
    assert frames == list(range(50))


async def test_a_child_that_announces_ready_is_ready_once_it_says_so() -> None:
    announcing = rpc("--ready", announces_ready=True)
    try:
        await announcing.start()
        assert announcing.running and not announcing.is_ready
        await announcing.send(lambda c: c.write(encode({"op": "become_ready"})))
        await asyncio.wait_for(announcing.wait_ready(), WAIT)
        assert announcing.is_ready
    finally:
        await announcing.close()


async def test_a_child_that_exits_while_starting_is_an_error_naming_it() -> None:
    failing = WorkerRPC(
        [sys.executable, "-c", "raise SystemExit(3)"],
        name="the test child",
        error=Unavailable,
        announces_ready=True,
    )
    try:
        with pytest.raises(Unavailable, match="the test child exited while starting"):
            await failing.wait_ready()
    finally:
        await failing.close()


async def test_a_command_that_cannot_start_is_the_clients_error() -> None:
    broken = WorkerRPC(["/nonexistent/python"], name="the test child", error=Unavailable)
    with pytest.raises(Unavailable, match="could not start the test child"):
        await broken.ask("echo", {"value": 1})


async def test_a_request_the_child_died_on_fails_and_the_next_starts_a_new_child(
    child: WorkerRPC, caplog: pytest.LogCaptureFixture
) -> None:
    first = await pid_of(child)
    with pytest.raises(WorkerExited) as died:
        await child.ask("die", {"code": 7})
    assert died.value.code == 7
    assert "the test child exited (code 7)" in caplog.text
    second = await pid_of(child)
    assert second != first and not alive(first)


async def test_a_request_written_to_a_child_that_died_unread_goes_to_a_new_child_once(
    child: WorkerRPC,
) -> None:
    first = await pid_of(child)
    os.kill(first, signal.SIGKILL)
    wait_gone(first)  # its pipe is closed, but the event loop has not heard of it yet
    assert (await child.ask("echo", {"value": "delivered"}))["result"] == "delivered"
    assert child.pid not in (None, first)


async def test_a_request_no_child_can_read_fails_after_the_second_child(tmp_path: Path) -> None:
    # Each child closes its input at once and lives on: no write can ever reach one.
    deaf = WorkerRPC(
        [sys.executable, "-c", "import os, time; os.close(0); time.sleep(600)"],
        name="the test child",
        error=Unavailable,
    )
    started: list[int] = []

    async def input_closed(child: WorkerProcess) -> None:
        started.append(child.process.pid)
        await until(lambda: not Path(f"/proc/{child.process.pid}/fd/0").exists(), "stdin closed")

    try:
        with pytest.raises(Unavailable, match="the test child stopped reading"):
            await deaf.ask("echo", {"value": 1}, before=input_closed)
        assert len(started) == 2  # the request went to a second child, and no further
        await until(lambda: not any(alive(pid) for pid in started), "both killed")
    finally:
        await deaf.close()


async def test_each_child_fails_only_the_requests_it_was_sent(child: WorkerRPC) -> None:
    first = await pid_of(child)
    pending = await child.call("slow", {"seconds": 600})  # sent, not answered
    os.kill(first, signal.SIGKILL)
    wait_gone(first)
    # The loop hears of the death late: this request finds the pipe broken and goes to
    # a new child, and the old child's end fails only the request it had.
    assert (await child.ask("echo", {"value": "new"}))["result"] == "new"
    with pytest.raises(WorkerExited):
        await pending.next()
    pending.close()
    assert (await child.ask("echo", {"value": "still"}))["result"] == "still"


async def test_closing_a_call_with_cancel_tells_the_child(child: WorkerRPC) -> None:
    call = await child.call("slow", {"seconds": 600})
    call.close(cancel=True)
    call.close(cancel=True)  # idempotent: said once
    assert (await child.ask("cancelled"))["result"] == [call.id]


async def test_log_frames_reach_this_process_log(
    child: WorkerRPC, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert (await child.ask("log", {"message": "from the child"}))["result"] is True
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("rpc_child", logging.WARNING, "from the child")
    ]


async def test_close_ends_the_child_and_everything_it_started() -> None:
    closing = rpc()
    first = await pid_of(closing)
    grandchild = int((await closing.ask("spawn"))["result"])
    assert alive(grandchild)
    await closing.close()
    assert not alive(first)
    # A kill is delivered, not awaited: the grandchild's end is a state to wait for.
    await until(lambda: not alive(grandchild), "the grandchild killed with its group")
    with pytest.raises(Unavailable, match="the test child was closed"):
        await closing.ask("echo", {"value": 1})


async def test_a_child_that_ignores_the_end_of_its_input_is_killed() -> None:
    lingering = rpc("--linger")
    pid = await pid_of(lingering)
    await lingering.close()  # stdin closed, then killed after the grace period
    assert not alive(pid)  # close() waited for it


async def test_an_idle_child_is_stopped_and_the_next_request_starts_another() -> None:
    idle = rpc(idle_seconds=lambda: 0.2)
    try:
        first = await pid_of(idle)
        await until(lambda: not idle.running, "the idle stop")
        await until(lambda: not alive(first), "the idle child's exit")
        assert await pid_of(idle) != first
    finally:
        await idle.close()


async def test_a_child_held_or_with_a_request_open_is_not_idle() -> None:
    idle = rpc(idle_seconds=lambda: 0.1)
    try:
        with idle.hold():
            first = await pid_of(idle)
            await asyncio.sleep(0.5)  # several idle periods
            assert idle.running and idle.pid == first
            call = await idle.call("slow", {"seconds": 0.6})
        # released, but a request is still open: answered by the same child
        assert (await call.next())["result"] == "slow"
        call.close()
        assert idle.pid == first
        await until(lambda: not idle.running, "the idle stop once nothing is open")
    finally:
        await idle.close()


async def test_zero_idle_seconds_never_stops_the_child() -> None:
    never = rpc(idle_seconds=lambda: 0)
    try:
        first = await pid_of(never)
        await asyncio.sleep(0.3)
        assert never.running and await pid_of(never) == first
    finally:
        await never.close()


def test_a_new_event_loop_gets_a_new_child_and_an_ended_loop_does_not_wait_for_one() -> None:
    """A process's pipes belong to the loop that started it. A loop that ends with the
    child running must not wait for it: it exits once its stdin closes, after the loop."""
    script = (
        "import asyncio, sys\n"
        "from agentls.child_rpc import WorkerRPC\n"
        f"child = WorkerRPC([sys.executable, {CHILD!r}], name='the test child', error=OSError)\n"
        "async def pid():\n"
        "    return (await child.ask('pid'))['result']\n"
        "print(asyncio.run(pid()), asyncio.run(pid()), flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 2 and pids[0] != pids[1], done.stderr
    # Both end on their own (the first killed by the second loop, the second at the end
    # of its input): states to wait for.
    asyncio.run(until(lambda: not any(alive(pid) for pid in pids), "both children gone"))
