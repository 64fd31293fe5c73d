"""The warm-up leaves the model worker alone unless ``llm.worker_at_start`` asks for it;
starting it ahead of a run (``agent/prepare``) is a head start: a worker that cannot start
is a warning for the log, not a failed background task, and the first run starts it again
and says why."""

from __future__ import annotations

import logging
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm.worker_client import ModelWorker
from agentls.server.warm_up import prepare_model_worker, warm_up


def _server(worker: ModelWorker, *, at_start: bool = False) -> Any:
    async def ready() -> None:
        return None

    config = SimpleNamespace(
        mcp=SimpleNamespace(servers=[]), llm=LLMConfig(worker_at_start=at_start)
    )
    folder = SimpleNamespace(config=config)
    return SimpleNamespace(
        warm_up=None, wait_ready=ready, config=config, folders=[folder], model_worker=worker
    )


async def test_the_warm_up_does_not_start_the_model_worker() -> None:
    worker = ModelWorker()
    try:
        await warm_up(_server(worker))
        assert not worker.running and worker.pid is None
    finally:
        await worker.close()


async def test_the_warm_up_starts_the_worker_when_the_config_asks_for_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = ModelWorker()
    try:
        with caplog.at_level(logging.INFO, logger="agentls.server.warm_up"):
            await warm_up(_server(worker, at_start=True))
        assert worker.is_ready
    finally:
        await worker.close()
    assert "model worker ready" in caplog.text


async def test_a_worker_that_exits_while_starting_is_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = ModelWorker([sys.executable, "-c", "import sys; sys.exit(3)"])
    try:
        with caplog.at_level(logging.INFO, logger="agentls.server.warm_up"):
            await prepare_model_worker(_server(worker))
    finally:
        await worker.close()
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert (
        logging.WARNING,
        "the model worker did not start ahead of the first run: "
        "the model worker exited while starting; see the server log",
    ) in messages
    assert not any("ready" in text for _, text in messages if "did not start" not in text)


async def test_a_worker_that_starts_is_logged_ready(caplog: pytest.LogCaptureFixture) -> None:
    worker = ModelWorker()
    try:
        with caplog.at_level(logging.INFO, logger="agentls.server.warm_up"):
            await prepare_model_worker(_server(worker))
        pid = worker.pid
    finally:
        await worker.close()
    assert pid is not None
    assert f"model worker ready (pid {pid})" in caplog.text
