"""race_cancel: the one way an await is raced against the run's cancellation."""

from __future__ import annotations

import asyncio

import pytest

from agentls.agent.cancel import CancelToken, Interrupted, race_cancel


async def test_the_result_passes_through() -> None:
    async def work() -> int:
        return 7

    assert await race_cancel(work(), CancelToken()) == 7


async def test_a_cancel_stops_the_work_and_says_why() -> None:
    token = CancelToken()
    started = asyncio.Event()
    cleaned = asyncio.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.set()

    race = asyncio.ensure_future(race_cancel(work(), token))
    await started.wait()
    token.cancel("stop now")
    with pytest.raises(Interrupted) as info:
        await race
    assert info.value.reason == "stop now"
    assert cleaned.is_set()  # the work was cancelled and awaited before the race ended


async def test_a_time_limit_is_a_timeout_error() -> None:
    async def work() -> None:
        await asyncio.Event().wait()

    with pytest.raises(TimeoutError):
        await race_cancel(work(), CancelToken(), seconds=0.01)


async def test_an_error_of_the_work_propagates() -> None:
    async def work() -> None:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        await race_cancel(work(), CancelToken())
