"""``workspace/didChangeConfiguration`` and ``agent/workspaceTrust``: the layers of the
config that the editor changes while the server runs.

``settings.agentls`` is the editor's layer; an invalid change is shown with
``window/showMessage`` (the message names the key) and ignored: the last valid config
stays in force. ``agent/workspaceTrust`` carries the editor's own trust verdict (VS
Code's Workspace Trust, granted while the window is open): the workspace's
``.agentls.yaml`` and MCP files then apply without a restart. Runs in flight keep the
config they started with; the next run uses the new one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from agentls.server.app import AgentLanguageServer
from agentls.server.settings import change_settings

if TYPE_CHECKING:
    from agentls.server.protocol import WorkspaceTrustParams

TRUST_METHOD = "agent/workspaceTrust"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(types.WORKSPACE_DID_CHANGE_CONFIGURATION, notification=True)
    async def did_change_configuration(
        ls: AgentLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await ls.wait_ready()
        ls.editor_settings = params.settings
        for folder in ls.folders:  # the editor's settings are the window's
            await folder.wait_loaded()
            folder.apply_settings(change_settings(folder.settings, params.settings))

    @ls.handler(TRUST_METHOD, notification=True)
    async def workspace_trust(ls: AgentLanguageServer, params: WorkspaceTrustParams) -> None:
        await ls.wait_ready()
        # The editor grants trust to the window, hence to every folder.
        ls.editor_trust = params.trusted
        for folder in ls.folders:
            await folder.wait_loaded()
            folder.apply_settings(folder.settings.set_editor_trust(params.trusted))
