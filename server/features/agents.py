"""``agent/agents`` → ``{agents: [{name, description, readOnly, source}]}``: the agents a
run can use (the built-ins, the agent files' and the ``agents:`` of the config, and the
``mixed`` mode), the agent files read again first as before a run."""

from __future__ import annotations

from typing import Any

from agentls.server.app import AgentLanguageServer

METHOD = "agent/agents"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_agents(ls: AgentLanguageServer, params: None) -> dict[str, Any]:
        await ls.wait_ready()
        from agentls.server.protocol import AgentInfo, AgentsResult

        ls.apply_settings(ls.settings.refresh_trust())
        agents = [
            AgentInfo(
                name=a.name, description=a.description, read_only=a.read_only, source=a.source
            )
            for a in ls.folder_engine().agents(ls.config).list()
        ]
        return AgentsResult(agents=agents).to_wire()
