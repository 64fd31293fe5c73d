"""What ``agent/checkpoints`` and ``agent/restore`` answer (server.features.checkpoints).

The restore writes through the same FileAccess as a run (the editor's buffers and
``workspace/applyEdit``), so the user confirms it like any other agent edit."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.checkpoints import list_checkpoints, restore, store_of_run
from agentls.agent.errors import AgentError
from agentls.server.protocol import CheckpointsResult, RestoreResult
from agentls.server.sessions_view import store

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer


def list_runs(ls: AgentLanguageServer, session_id: str | None) -> dict[str, Any]:
    try:
        runs = list_checkpoints(store(ls), session_id)
    except AgentError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    return CheckpointsResult.model_validate({"runs": runs}).to_wire()


async def restore_run(ls: AgentLanguageServer, run_id: str, *, force: bool) -> dict[str, Any]:
    try:
        checkpoints = await asyncio.to_thread(store_of_run, store(ls), run_id)
    except AgentError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    files = ls.files_for(ls.config)
    result = await restore(checkpoints, run_id, files, force=force, confirm=True)
    return RestoreResult.model_validate(result.model_dump()).to_wire()
