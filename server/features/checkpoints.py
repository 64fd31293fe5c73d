"""``agent/checkpoints`` and ``agent/restore``: undo a whole run from the editor.

- ``agent/checkpoints {sessionId?}`` → ``{runs: [{runId, sessionId, kind, at, restores,
  files: [{path, change}], undo?}]}``, newest first; with ``sessionId`` each run says
  what undoing it would do now (``undo``).
- ``agent/restore {runId, force?}`` → ``{runId, restoreRunId, status, message, restored,
  conflicts, unrestorable}``: one WorkspaceEdit, confirmed like any agent edit, that puts
  the workspace back before the run (later runs of its session are undone too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import CheckpointsParams, RestoreParams

LIST_METHOD = "agent/checkpoints"
RESTORE_METHOD = "agent/restore"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(LIST_METHOD)
    async def agent_checkpoints(
        ls: AgentLanguageServer, params: CheckpointsParams
    ) -> dict[str, Any]:
        from agentls.server.checkpoints_view import list_runs

        folder = await ls.folder_named(params.folder)
        return await list_runs(ls, folder, params.session_id)

    @ls.handler(RESTORE_METHOD)
    async def agent_restore(ls: AgentLanguageServer, params: RestoreParams) -> dict[str, Any]:
        from agentls.server.checkpoints_view import restore_run

        folder = await ls.folder_named(params.folder)
        return await restore_run(ls, folder, params.run_id, force=params.force)
