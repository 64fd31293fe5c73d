"""``initialize``, ``initialized`` and ``shutdown``.

``initialize`` answers at once, as fast as a bare pygls server: it starts loading the
configuration (``.agentls.yaml`` + ``initializationOptions``, with pydantic and the run
machinery imported in a worker thread) and every feature that needs it awaits
``ls.wait_ready()``. Everything slow starts after ``initialized`` as background tasks:
starting the model worker process, loading the tokenizer (in a daemon thread, for token
counts) and building the repository index. A config error is shown with
``window/showMessage`` once the client is ready; the server goes on with the last valid
config (or the defaults).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types

from agentls.server.converter import prime
from agentls.server.logging import configure_logging

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer

log = logging.getLogger(__name__)

#: How long ``shutdown`` waits for runs to stop after cancelling them.
SHUTDOWN_GRACE_SECONDS = 5.0


def workspace_root(ls: AgentLanguageServer, params: types.InitializeParams) -> Path:
    folders = params.workspace_folders or []
    if folders:
        from pygls.uris import to_fs_path

        path = to_fs_path(folders[0].uri)
        if path:
            return Path(path)
    root = ls.workspace.root_path
    return Path(root) if root else Path.cwd()


def apply_logging(ls: AgentLanguageServer) -> None:
    cfg = ls.config.logging
    configure_logging(cfg.level, file=cfg.file, verbose=cfg.verbose)


#: Modules a run imports on first use; loaded in the background at start-up.
RUN_MODULES = (
    "agentls.agent.llm.process",
    "agentls.agent.process",
    "agentls.agent.sandbox",
    "agentls.agent.shell_policy",
    "agentls.agent.tools.edit",
    "agentls.agent.tools.exec",
    "agentls.agent.tools.files",
    "agentls.agent.tools.interaction",
    "agentls.agent.tools.outcome",
    "agentls.agent.tools.schemas",
    "agentls.server.edits",
    "agentls.server.lsp_files",
)


def register(ls: AgentLanguageServer) -> None:
    from agentls.server.app import guarded

    pending_error: list[str] = []

    def load(root: Path, options: object) -> None:
        """In a worker thread: import the config and run machinery, read the config."""
        ls.load_services()
        import agentls.agent.run  # imported here so that the first run does not import it
        import agentls.agent.tools.search  # noqa: F401 - the index service needs it

        update = ls.settings.initialize(root, options)
        if update.error:
            pending_error.append(update.error)
        # What the first run would otherwise do on the event loop: import the tools
        # (bashlex builds its parser tables on import) and generate the converter's
        # functions for the LSP messages a run exchanges.
        for name in RUN_MODULES:
            importlib.import_module(name)
        prime(ls.converter)

    async def ready(root: Path, options: object) -> None:
        await asyncio.to_thread(load, root, options)
        apply_logging(ls)
        log.info("workspace %s, model %s", ls.config.workspace.root, ls.config.llm.model)

    @ls.feature(types.INITIALIZE)
    @guarded("initialize")
    def initialize(ls: AgentLanguageServer, params: types.InitializeParams) -> None:
        # Answer at once: the configuration loads in the background and every
        # feature that needs it awaits ``ls.wait_ready()``.
        ls.client_info = params.client_info
        root = workspace_root(ls, params)
        ls.ready_task = ls.spawn(ready(root, params.initialization_options), name="settings")

    @ls.feature(types.INITIALIZED)
    @guarded("initialized", notification=True)
    def initialized(ls: AgentLanguageServer, params: types.InitializedParams) -> None:
        ls.warm_up_task = ls.spawn(_warm_up(ls), name="llm-warm-up")
        ls.spawn(after_ready(ls), name="start-index")

    async def after_ready(ls: AgentLanguageServer) -> None:
        await ls.wait_ready()
        for message in pending_error:
            ls.show_error(f"agentls: invalid configuration, using the last valid one:\n{message}")
        pending_error.clear()
        ls.index_service.start(ls.config)

    @ls.feature(types.SHUTDOWN)
    @guarded("shutdown")
    async def shutdown(ls: AgentLanguageServer, params: None) -> None:
        if ls.active_runs:
            ls.runs.cancel_all("the editor is shutting down")
            await ls.runs.wait_all(SHUTDOWN_GRACE_SECONDS)
        if ls.ready_task is not None and ls.ready_task.done():
            await ls.runs.aclose()
        ls.index_service.stop()
        await ls.close_model_worker()


async def _warm_up(ls: AgentLanguageServer) -> None:
    if ls.warm_up is not None:
        await ls.warm_up()
        return

    async def start_worker() -> None:
        await ls.wait_ready()  # agent.llm.process is imported then, off the loop
        await ls.model_worker.wait_ready()

    def settle() -> None:
        from agentls.agent.tokens import warm_up

        # The MCP SDK (~1 s, ~40 MB): the first run would pay the time, but only a
        # configured MCP server is worth the memory.
        if ls.config.mcp.servers:
            import agentls.agent.mcp  # noqa: F401
        # The context manager counts tokens with tiktoken alone: litellm is imported
        # only by the model worker process, never here. Loading the encoding takes
        # ~100 ms, which the first step of a run would otherwise stall on.
        warm_up(ls.config.llm.model)
        # The MCP SDK, pydantic and lsprotocol leave many long-lived objects; frozen,
        # full collections only look at what came after.
        gc.collect()
        gc.freeze()

    await start_worker()
    # A daemon thread, not asyncio.to_thread: an executor thread would hold up the
    # server's exit until the import finished (asyncio.run joins its executor).
    await in_daemon_thread(settle, name="agentls-tokenizer")
    log.info("model worker ready (pid %s); tokenizer loaded", ls.model_worker.pid)


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
