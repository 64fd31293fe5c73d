"""``agent/agents`` → ``{agents: [{name, description, readOnly, source}]}``: the agents a
run can use (the built-ins, the agent files' and the ``agents:`` of the config, and the
``mixed`` mode), the agent files read again first as before a run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import FolderParams

METHOD = "agent/agents"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_agents(ls: AgentLanguageServer, params: FolderParams) -> dict[str, Any]:
        folder = await ls.folder_named(params.folder)
        from agentls.server.protocol import AgentInfo, AgentsResult

        folder.apply_settings(folder.settings.refresh_trust())
        agents = [
            AgentInfo(
                name=a.name, description=a.description, read_only=a.read_only, source=a.source
            )
            for a in folder.engine.agents(folder.config).list()
        ]
        return AgentsResult(agents=agents).to_wire()
