"""``agent/cancel {runId}`` → ``{cancelled}``: stop a run cleanly (status partial).

``cancelled`` is false when no run of that id is in flight (finished, unknown, or
already cancelled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import CancelParams

METHOD = "agent/cancel"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    def agent_cancel(ls: AgentLanguageServer, params: CancelParams) -> dict[str, Any]:
        from agentls.server.protocol import CancelResult

        run_id = params.run_id
        folder = ls.folders.with_run(run_id) if ls.active_runs else None
        cancelled = folder is not None and folder.runs.cancel(run_id, "cancelled by agent/cancel")
        return CancelResult(cancelled=cancelled).to_wire()
