"""``agent/cancel {runId}`` → ``{cancelled}``: stop a run cleanly (status partial).

``cancelled`` is false when no run of that id is in flight (finished, unknown, or
already cancelled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.server.settings import plain

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer

METHOD = "agent/cancel"


def run_id_of(params: Any) -> str:
    """``runId`` of the params; anything else is InvalidParams naming the field."""
    data = plain(params)
    if not isinstance(data, dict) or set(data) - {"runId"}:
        raise JsonRpcInvalidParams("invalid params: expected {runId: string}")
    run_id = data.get("runId")
    if not isinstance(run_id, str) or not run_id:
        raise JsonRpcInvalidParams("invalid params: runId: a non-empty string is required")
    return run_id


def register(ls: AgentLanguageServer) -> None:
    from agentls.server.app import guarded

    @ls.feature(METHOD)
    @guarded(METHOD)
    def agent_cancel(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        run_id = run_id_of(params)
        if not ls.active_runs:
            return {"cancelled": False}
        return {"cancelled": ls.runs.cancel(run_id, "cancelled by agent/cancel")}
