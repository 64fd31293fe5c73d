"""``agent/cancel {runId}`` → ``{cancelled}``: stop a run cleanly (status partial).

``cancelled`` is false when no run of that id is in flight (finished, unknown, or
already cancelled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from server.runs import parse_params

if TYPE_CHECKING:
    from server.app import AgentLanguageServer

METHOD = "agent/cancel"


class CancelParams(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    run_id: str = Field(alias="runId", min_length=1)


def register(ls: AgentLanguageServer) -> None:
    from server.app import guarded

    @ls.feature(METHOD)
    @guarded(METHOD)
    def agent_cancel(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        parsed: CancelParams = parse_params(CancelParams, params)
        return {"cancelled": ls.runs.cancel(parsed.run_id, "cancelled by agent/cancel")}
