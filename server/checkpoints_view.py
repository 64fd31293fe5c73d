"""What ``agent/checkpoints`` and ``agent/restore`` answer (server.features.checkpoints).

The restore writes through the same FileAccess as a run (the editor's buffers and
``workspace/applyEdit``), so the user confirms it like any other agent edit."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from agentls.agent.checkpoints import (
    CheckpointStore,
    list_checkpoints,
    preview_restore,
    restore,
    store_of_run,
)
from agentls.agent.errors import AgentError
from agentls.server.edit_confirmation import APPLY, REJECT, ClientEditSupport
from agentls.server.protocol import CheckpointsResult, RestoreResult
from agentls.server.sessions_view import store

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer
    from agentls.server.folders import ServerFolder


#: How many of a session's newest runs get an undo preview (each reads the files it names).
PREVIEWED_RUNS = 20


async def list_runs(
    ls: AgentLanguageServer, folder: ServerFolder, session_id: str | None
) -> dict[str, Any]:
    """The runs with checkpoints; with ``session_id``, each (of the newest) with what
    undoing it would do now, which is what a button that offers it must say."""
    try:
        runs = await asyncio.to_thread(list_checkpoints, store(folder), session_id)
    except AgentError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    if session_id is not None and runs:
        checkpoints = CheckpointStore.for_session(store(folder), session_id)
        files = ls.files_for(folder.config)
        for run in [r for r in runs if r.get("kind") == "run"][:PREVIEWED_RUNS]:
            try:
                run["undo"] = await preview_restore(checkpoints, str(run["runId"]), files)
            except AgentError:
                continue  # no preview: the button offers the plain undo
    return CheckpointsResult.model_validate({"runs": runs}).to_wire()


async def restore_run(
    ls: AgentLanguageServer, folder: ServerFolder, run_id: str, *, force: bool
) -> dict[str, Any]:
    try:
        checkpoints = await asyncio.to_thread(store_of_run, store(folder), run_id)
    except AgentError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    files = ls.files_for(folder.config)
    support = ClientEditSupport.from_capabilities(ls.client_capabilities)
    result = await restore(
        checkpoints,
        run_id,
        files,
        force=force,
        confirm=True,
        confirm_bytes=(lambda paths: _ask_bytes(ls, paths)) if support.show_message else None,
        confirm_modes=(lambda lines: _ask_modes(ls, lines)) if support.show_message else None,
    )
    return RestoreResult.model_validate(result.model_dump()).to_wire()


async def _ask_bytes(ls: AgentLanguageServer, paths: list[str]) -> bool:
    """Files that are not text cannot be shown in a workspace edit: ask about them apart."""
    question = (
        f"Undoing the run also writes back {len(paths)} file(s) that are not text, as they "
        f"were before it: {', '.join(paths)}. Write them back?"
    )
    return await _ask(ls, question)


async def _ask_modes(ls: AgentLanguageServer, lines: list[str]) -> bool:
    """A mode change is no part of a workspace edit either: asked about apart."""
    question = (
        f"Undoing the run also sets the mode of {len(lines)} file(s) back: "
        f"{'; '.join(lines)}. Change the modes?"
    )
    return await _ask(ls, question)


async def _ask(ls: AgentLanguageServer, question: str) -> bool:
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
