"""``agent/cancel {runId}`` → ``{cancelled}``: stop a run cleanly (status partial).

``cancelled`` is false when no run of that id is in flight (finished, unknown, or
already cancelled).
"""

from __future__ import annotations

from typing import Any

from agentls.server.app import AgentLanguageServer

METHOD = "agent/cancel"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    def agent_cancel(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        from agentls.server.protocol import CancelParams, CancelResult, parse_params

        run_id = parse_params(CancelParams, params).run_id
        cancelled = bool(ls.active_runs) and ls.runs.cancel(run_id, "cancelled by agent/cancel")
        return CancelResult(cancelled=cancelled).to_wire()
