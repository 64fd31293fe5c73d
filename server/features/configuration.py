"""``workspace/didChangeConfiguration``: the ``settings.agentls`` layer of the config.

An invalid change is shown with ``window/showMessage`` (the message names the key)
and ignored: the last valid config stays in force. Runs in flight keep the config
they started with; the next run uses the new one.
"""

from __future__ import annotations

from lsprotocol import types

from agentls.server.app import AgentLanguageServer
from agentls.server.features.lifecycle import apply_logging


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(types.WORKSPACE_DID_CHANGE_CONFIGURATION, notification=True)
    async def did_change_configuration(
        ls: AgentLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await ls.wait_ready()
        update = ls.settings.change(params.settings)
        if update.error:
            ls.show_error(
                f"agentls: invalid configuration, using the last valid one:\n{update.error}"
            )
            return
        if update.changed:
            apply_logging(ls)
            ls.index_service.start(ls.config)
