"""What the server does ahead of the first run so that it does not stall the editor:
import the run's modules (while the config loads), then, after ``initialized``, freeze
the GC's old objects. The model worker (~250 MB with litellm) is not started then: an
editor window that nobody runs the agent in should cost only the server and the symbol
process. It starts at the first sign of a run (``agent/prepare``: the panel opened, a
prompt is being typed; see ``prepare_model_worker``), at the first run otherwise, or
after ``initialized`` when ``llm.worker_at_start`` asks for it."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer

log = logging.getLogger(__name__)

#: Modules a run imports on first use; loaded in the background at start-up.
RUN_MODULES = (
    "agentls.agent.llm.worker_client",
    "agentls.agent.exec.process",
    "agentls.agent.exec.sandbox",
    "agentls.agent.policy.shell_policy",
    "bashlex",  # imported by shell_policy at the first command: its parser tables
    "agentls.agent.tools.edit",
    "agentls.agent.tools.exec",
    "agentls.agent.tools.files",
    "agentls.agent.tools.interaction",
    "agentls.agent.tools.outcome",
    "agentls.agent.tools.schemas",
    "agentls.agent.sessions.recorder",
    "agentls.server.edits",
    "agentls.server.edit_confirmation",
    "agentls.server.edit_outcome",
    "agentls.server.lsp_files",
)


def import_run_modules() -> None:
    """In a worker thread: what the first run would otherwise import on the event loop
    (bashlex builds its parser tables on import), and the one start of bwrap that tells
    whether commands can be sandboxed here (kept for the process)."""
    for name in RUN_MODULES:
        importlib.import_module(name)
    from agentls.agent.exec.sandbox import bwrap_status

    bwrap_status()


async def warm_up(ls: AgentLanguageServer) -> None:
    """After ``initialized``: the MCP SDK imported when servers are configured (and the
    model worker started if ``llm.worker_at_start``), then the long-lived objects frozen
    out of the GC's way."""
    if ls.warm_up is not None:
        await ls.warm_up()
        return

    def preload() -> None:
        import agentls.agent.mcp  # noqa: F401 - the MCP SDK (~1 s): the first run would pay it

    async def preload_mcp() -> None:
        await ls.wait_ready()
        # else no run imports it: ~30 MB saved
        if any(folder.config.mcp.servers for folder in ls.folders):
            await in_daemon_thread(preload, name="agentls-preload")

    async def worker_at_start() -> None:
        await ls.wait_ready()
        if ls.config.llm.worker_at_start:
            await prepare_model_worker(ls)

    def settle() -> None:
        # The MCP SDK, pydantic and lsprotocol leave many long-lived objects. A full
        # collection walks them all, every thread stopped, in the middle of a run;
        # frozen, collections only look at what came after.
        gc.collect()
        gc.freeze()

    # Daemon threads, not asyncio.to_thread: an executor thread would hold up the
    # server's exit until a slow import finished (asyncio.run joins its executor).
    # Neither litellm nor a tokenizer is ever loaded in this process: the model worker
    # process makes the calls and counts the tokens.
    await asyncio.gather(preload_mcp(), worker_at_start())
    await in_daemon_thread(settle, name="agentls-gc-freeze")


async def prepare_model_worker(ls: AgentLanguageServer) -> None:
    """A sign that the user will run the agent: the model worker started, with litellm
    imported (~3 s) when the configured model's calls need it, so that the run does not
    wait for either, and its idle clock restarted."""
    await ls.wait_ready()  # agent.llm.worker_client is imported then, off the loop
    worker = ls.model_worker
    was_ready = worker.is_ready
    try:
        await worker.wait_ready()
        await worker.prepare(ls.config.llm)
    except Exception as exc:
        # Only a head start: the first run starts the worker again and tells the user why
        # it cannot; the editor may also be closing it under us.
        log.warning("the model worker did not start ahead of the first run: %s", exc)
    else:
        if not was_ready:  # the panel says so every few seconds while the user types
            log.info("model worker ready (pid %s)", worker.pid)


T = TypeVar("T")


async def in_daemon_thread(fn: Callable[[], T], *, name: str) -> T:
    """``fn()`` in a daemon thread, awaited without blocking the loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def target() -> None:
        try:
            result, error = fn(), None
        except BaseException as exc:
            result, error = None, exc
        if not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=target, name=name, daemon=True).start()
    return await future
