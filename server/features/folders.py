"""``workspace/didChangeWorkspaceFolders``: the editor added or removed workspace folders.

An added folder is registered at once (a request naming it right after waits for it),
then loaded in a thread (its settings layers and trust, with the editor's latest settings
and trust) and indexed. A removed folder is taken out at once: its runs in flight are
cancelled (each ends ``partial``, its output saying the folder was removed), what it
started is closed once they have ended, and later requests naming it are refused.
pygls advertises ``workspace.workspaceFolders {supported, changeNotifications}``.
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from agentls.server.app import AgentLanguageServer
from agentls.server.folders import ServerFolder, folder_path
from agentls.server.settings import change_settings, start_settings

log = logging.getLogger(__name__)

#: How long a removed folder's runs get to stop before what it started is closed.
REMOVED_GRACE_SECONDS = 10.0


def register(ls: AgentLanguageServer) -> None:
    # Not async: the folders change before the next message is read, so a run that
    # names an added folder right after finds it, and one naming a removed one does not.
    @ls.handler(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, notification=True)
    def did_change_workspace_folders(
        ls: AgentLanguageServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        for gone in params.event.removed or []:
            folder = ls.folders.remove(gone.uri)
            if folder is not None:
                log.info("workspace folder removed: %s", folder.root)
                ls.spawn(drop(folder), name="drop-folder")
        for new in params.event.added or []:
            path = folder_path(new.uri)
            if path is None or ls.folders.find(new.uri) is not None:
                continue
            folder = ls.folders.add(ls, new.uri, path)
            log.info("workspace folder added: %s", path)
            folder.ready_task = ls.spawn(load(ls, folder), name="load-folder")


async def load(ls: AgentLanguageServer, folder: ServerFolder) -> None:
    """The added folder's settings as the others have them, then its index."""
    await ls.wait_ready()

    def read() -> list[str]:
        errors = []
        update = start_settings(folder.settings, folder.root, ls.initialization_options)
        errors.append(update.error)
        if ls.editor_settings is not None:
            errors.append(change_settings(folder.settings, ls.editor_settings).error)
        if ls.editor_trust is not None:
            errors.append(folder.settings.set_editor_trust(ls.editor_trust).error)
        return [error for error in errors if error]

    for error in await asyncio.to_thread(read):
        ls.show_error(
            f"agentls: invalid configuration of {folder.root}, using the last valid one:\n{error}"
        )
    if folder.removed:
        return
    for notice in folder.engine.notices(
        trust=not folder.settings.editor_grants_trust, sandbox=False
    ):
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"agentls: {notice}")
        )
    folder.index_service.start(folder.config)


async def drop(folder: ServerFolder) -> None:
    """The removed folder's runs cancelled and waited for, then what it started closed."""
    if folder.ready_task is not None:
        await asyncio.gather(folder.ready_task, return_exceptions=True)
    if folder.active_runs:
        folder.runs.cancel_all(f"the workspace folder {folder.name} was removed")
        await folder.runs.wait_all(REMOVED_GRACE_SECONDS)
    await folder.aclose()
