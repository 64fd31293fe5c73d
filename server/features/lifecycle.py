"""``initialize``, ``initialized`` and ``shutdown``.

``initialize`` answers at once, as fast as a bare pygls server: it starts loading the
configuration (``.agentls.yaml`` + ``initializationOptions``, with pydantic and the run
machinery imported in a worker thread) and every feature that needs it awaits
``ls.wait_ready()``. Everything slow starts after ``initialized`` as background tasks:
the warm-up (server/warm_up.py; the model worker process, which alone imports litellm and
counts tokens, waits for ``agent/prepare`` or the first run) and building the repository
index. A config error is shown with
``window/showMessage`` once the client is ready; the server goes on with the last valid
config (or the defaults).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types

from agentls.logging_setup import configure_logging
from agentls.server.app import AgentLanguageServer
from agentls.server.converter import prime
from agentls.server.settings import start_settings
from agentls.server.warm_up import import_run_modules, warm_up

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


def warn_once_at_start(ls: AgentLanguageServer) -> None:
    """What the user must know before the first run: commands cannot be sandboxed here,
    and (for editors without a trust model of their own) what the untrusted folder's
    config lost. VS Code shows its own Restricted Mode instead of the second."""
    trust = not ls.settings.editor_grants_trust
    for message in ls.folder_engine().notices(trust=trust):
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"agentls: {message}")
        )


def register(ls: AgentLanguageServer) -> None:
    pending_error: list[str] = []

    def load(root: Path, options: object) -> None:
        """In a worker thread: import the config and run machinery, read the config."""
        ls.load_services()
        import agentls.agent.run  # imported here so that the first run does not import it
        import agentls.agent.tools.search  # noqa: F401 - the index service needs it

        update = start_settings(ls.settings, root, options)
        if update.error:
            pending_error.append(update.error)
        # What the first run would otherwise do on the event loop: import the tools
        # (bashlex builds its parser tables on import) and generate the converter's
        # functions for the LSP messages a run exchanges.
        import_run_modules()
        prime(ls.converter)

    async def ready(root: Path, options: object) -> None:
        # The protocol's models first, alone in their thread: the messages of ours that
        # need them wait for them (server/jsonrpc.py), not for the whole configuration.
        await asyncio.shield(ls.protocol.load_types())
        await asyncio.to_thread(load, root, options)
        apply_logging(ls)
        log.info("workspace %s, model %s", ls.config.workspace.root, ls.config.llm.model)

    @ls.handler(types.INITIALIZE)
    def initialize(ls: AgentLanguageServer, params: types.InitializeParams) -> None:
        # Answer at once: the configuration loads in the background and every
        # feature that needs it awaits ``ls.wait_ready()``.
        ls.client_info = params.client_info
        root = workspace_root(ls, params)
        ls.ready_task = ls.spawn(ready(root, params.initialization_options), name="settings")

    @ls.handler(types.INITIALIZED, notification=True)
    def initialized(ls: AgentLanguageServer, params: types.InitializedParams) -> None:
        ls.warm_up_task = ls.spawn(warm_up(ls), name="llm-warm-up")
        ls.spawn(after_ready(ls), name="start-index")

    async def after_ready(ls: AgentLanguageServer) -> None:
        await ls.wait_ready()
        for message in pending_error:
            ls.show_error(f"agentls: invalid configuration, using the last valid one:\n{message}")
        pending_error.clear()
        warn_once_at_start(ls)
        ls.index_service.start(ls.config)

    @ls.handler(types.SHUTDOWN)
    async def shutdown(ls: AgentLanguageServer, params: None) -> None:
        if ls.active_runs:
            ls.runs.cancel_all("the editor is shutting down")
            await ls.runs.wait_all(SHUTDOWN_GRACE_SECONDS)
        if ls.ready_task is not None and ls.ready_task.done():
            await ls.runs.aclose()
        ls.index_service.stop()
        if ls.warm_up_task is not None:
            # Closing the worker while it starts is not a failure of the warm-up.
            ls.warm_up_task.cancel()
        await ls.close_model_worker()
