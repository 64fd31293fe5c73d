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
from agentls.server.folders import folder_path
from agentls.server.settings import start_settings
from agentls.server.warm_up import import_run_modules, warm_up

log = logging.getLogger(__name__)

#: A workspace folder as the editor names it, and its path.
Folder = tuple[str, Path]

#: How long ``shutdown`` waits for runs to stop after cancelling them.
SHUTDOWN_GRACE_SECONDS = 5.0


def workspace_folders(ls: AgentLanguageServer, params: types.InitializeParams) -> list[Folder]:
    """The folders the editor opened, first the default: its workspace folders, else its
    root, else the current directory."""
    found = [
        (folder.uri, path)
        for folder in params.workspace_folders or []
        if (path := folder_path(folder.uri)) is not None
    ]
    if found:
        return found
    root = ls.workspace.root_path
    path = Path(root) if root else Path.cwd()
    return [(ls.workspace.root_uri or path.as_uri(), path)]


def workspace_root(ls: AgentLanguageServer, params: types.InitializeParams) -> Path:
    """The default folder's path."""
    return workspace_folders(ls, params)[0][1]


def apply_logging(ls: AgentLanguageServer) -> None:
    cfg = ls.config.logging
    configure_logging(cfg.level, file=cfg.file, verbose=cfg.verbose)


def warn_once_at_start(ls: AgentLanguageServer) -> None:
    """What the user must know before the first run: commands cannot be sandboxed here,
    and (for editors without a trust model of their own) what the untrusted folder's
    config lost. VS Code shows its own Restricted Mode instead of the second."""
    sandbox = True
    for folder in ls.folders:
        trust = not folder.settings.editor_grants_trust
        # The sandbox is the machine's: said once, not once per folder.
        for message in folder.engine.notices(trust=trust, sandbox=sandbox):
            ls.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"agentls: {message}"
                )
            )
        sandbox = False


def register(ls: AgentLanguageServer) -> None:
    pending_error: list[tuple[str, str]] = []

    def load(options: object) -> None:
        """In a worker thread: import the config and run machinery, read the config of
        every folder."""
        ls.load_services()
        import agentls.agent.run  # imported here so that the first run does not import it
        import agentls.agent.tools.search  # noqa: F401 - the index service needs it

        for folder in ls.folders:
            update = start_settings(folder.settings, folder.root, options)
            if update.error:
                where = f" of {folder.root}" if len(ls.folders) > 1 else ""
                pending_error.append((where, update.error))
        # What the first run would otherwise do on the event loop: import the tools
        # (bashlex builds its parser tables on import) and generate the converter's
        # functions for the LSP messages a run exchanges.
        import_run_modules()
        prime(ls.converter)

    async def ready(options: object) -> None:
        # The protocol's models first, alone in their thread: the messages of ours that
        # need them wait for them (server/jsonrpc.py), not for the whole configuration.
        await asyncio.shield(ls.protocol.load_types())
        await asyncio.to_thread(load, options)
        apply_logging(ls)
        for folder in ls.folders:
            config = folder.config
            log.info("workspace %s, model %s", config.workspace.root, config.llm.model)

    @ls.handler(types.INITIALIZE)
    def initialize(ls: AgentLanguageServer, params: types.InitializeParams) -> None:
        # Answer at once: the configuration loads in the background and every
        # feature that needs it awaits ``ls.wait_ready()``.
        ls.client_info = params.client_info
        ls.folders.drop_implicit()
        for uri, path in workspace_folders(ls, params):
            ls.folders.add(ls, uri, path)
        ls.initialization_options = params.initialization_options
        ls.ready_task = ls.spawn(ready(params.initialization_options), name="settings")

    @ls.handler(types.INITIALIZED, notification=True)
    def initialized(ls: AgentLanguageServer, params: types.InitializedParams) -> None:
        ls.warm_up_task = ls.spawn(warm_up(ls), name="llm-warm-up")
        ls.spawn(after_ready(ls), name="start-index")

    async def after_ready(ls: AgentLanguageServer) -> None:
        await ls.wait_ready()
        for where, message in pending_error:
            ls.show_error(
                f"agentls: invalid configuration{where}, using the last valid one:\n{message}"
            )
        pending_error.clear()
        warn_once_at_start(ls)
        for folder in ls.folders:
            folder.index_service.start(folder.config)

    @ls.handler(types.SHUTDOWN)
    async def shutdown(ls: AgentLanguageServer, params: None) -> None:
        if ls.active_runs:
            for folder in ls.folders:
                if folder.active_runs:
                    folder.runs.cancel_all("the editor is shutting down")
            await asyncio.gather(
                *(f.runs.wait_all(SHUTDOWN_GRACE_SECONDS) for f in ls.folders if f.active_runs)
            )
        closing = ls.ready_task is not None and ls.ready_task.done()
        for folder in ls.folders:
            if closing:
                await folder.aclose()
            else:
                folder.index_service.stop()
        if ls.warm_up_task is not None:
            # Closing the worker while it starts is not a failure of the warm-up.
            ls.warm_up_task.cancel()
        await ls.close_model_worker()
