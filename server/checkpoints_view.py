"""What ``agent/checkpoints`` and ``agent/restore`` answer (server.features.checkpoints).

The restore writes through the same FileAccess as a run (the editor's buffers and
``workspace/applyEdit``), so the user confirms it like any other agent edit."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from agentls.agent.checkpoints import list_checkpoints, restore, store_of_run
from agentls.agent.errors import AgentError
from agentls.server.edit_confirmation import APPLY, REJECT, ClientEditSupport
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
    support = ClientEditSupport.from_capabilities(ls.client_capabilities)
    result = await restore(
        checkpoints,
        run_id,
        files,
        force=force,
        confirm=True,
        confirm_bytes=(lambda paths: _ask_bytes(ls, paths)) if support.show_message else None,
    )
    return RestoreResult.model_validate(result.model_dump()).to_wire()


async def _ask_bytes(ls: AgentLanguageServer, paths: list[str]) -> bool:
    """Files that are not text cannot be shown in a workspace edit: ask about them apart."""
    question = (
        f"Undoing the run also writes back {len(paths)} file(s) that are not text, as they "
        f"were before it: {', '.join(paths)}. Write them back?"
    )
    params = lsp.ShowMessageRequestParams(
        type=lsp.MessageType.Warning,
        message=question,
        actions=[lsp.MessageActionItem(title=APPLY), lsp.MessageActionItem(title=REJECT)],
    )
    try:
        answer = await ls.window_show_message_request_async(params)
    except JsonRpcException:
        return False
    return answer is not None and answer.title == APPLY
