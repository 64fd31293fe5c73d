"""``agent/commands`` → ``{commands: [{name, description, hint, source, path}], problems}``:
the ``/name`` commands a prompt of this workspace may start with (the built-ins, the
user's prompt files, the workspace's), for a client's picker. ``problems`` names the
prompt files that were skipped and why; the other commands are listed all the same.

Read again at each request rather than cached: the user may have just written a prompt
file, and the picker asks when it opens."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.agent.folder.folder import FolderEngine
    from agentls.server.protocol import FolderParams

METHOD = "agent/commands"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_commands(ls: AgentLanguageServer, params: FolderParams) -> dict[str, Any]:
        folder = await ls.folder_named(params.folder)
        root = folder.config.workspace.root
        # Reading the prompt files blocks; the editor's other requests must not wait on it.
        return await asyncio.to_thread(list_commands, folder.engine, root)


def list_commands(engine: FolderEngine, root: Path) -> dict[str, Any]:
    from agentls.server.protocol import SlashCommandInfo, SlashCommandsResult

    found = engine.slash_commands(root)
    commands = [
        SlashCommandInfo(
            name=c.name, description=c.description, hint=c.hint, source=c.source, path=c.path
        )
        for c in found.listed()
    ]
    return SlashCommandsResult(commands=commands, problems=found.problems).to_wire()
