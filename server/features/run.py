"""``agent/run``: run an agent to the end.

Params ``RunParams`` (``server/protocol.py``: ``{prompt, agent?, runId?, sessionId?,
confirmMode?, maxSteps?, selfEval?, dryRun?, activeFile?, attachments?, folder?,
workDoneToken?}``); result ``RunResult`` (``agent/contract.py``: ``{status, output, steps,
tools_used, duration_seconds, model, runId, sessionId, usage, folder}``). Progress arrives
meanwhile as ``agent/stream``, ``agent/step``, ``agent/status``, ``agent/plan`` and
``$/progress``. ``$/cancelRequest`` on this request stops the run cleanly, then answers
RequestCancelled. The run starts the model worker if ``agent/prepare`` has not, and
waits for it.

The run works in one workspace folder (server/folders.py): the one ``folder`` names, else
the one that holds ``activeFile``, else the first; a file of another folder in the
request is refused unless the user's config allows reading across folders
(``agent.folder.across_folders``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.agent.workspace import FileAccess
    from agentls.server.folders import ServerFolder
    from agentls.server.protocol import RunParams
    from agentls.server.runs import FilesAround

METHOD = "agent/run"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_run(ls: AgentLanguageServer, params: RunParams) -> dict[str, Any]:
        await ls.wait_ready()
        folder = run_folder(ls, params)
        await folder.wait_ready()
        if params.run_id is not None and ls.folders.with_run(params.run_id) is not None:
            raise JsonRpcInvalidParams(f"a run with id {params.run_id!r} is already in flight")
        params, around = across_folders(ls, folder, params)
        # A run in flight keeps the model worker between its calls (a tool that runs for
        # minutes, a question to the user): it is not stopped for being idle.
        with ls.model_worker.hold():
            result = await folder.runs.run(params, files_around=around)
        result["folder"] = folder.uri
        return result


def local_path(name: str) -> str:
    """A path or a ``file:`` URI, as a path."""
    if name.startswith("file:"):
        return to_fs_path(name) or name
    return name


def run_folder(ls: AgentLanguageServer, params: RunParams) -> ServerFolder:
    """The folder ``params.folder`` names, else the one holding the absolute active
    file, else the first (InvalidParams for a folder that is none of them)."""
    if params.folder is not None:
        return ls.folders.named(params.folder)
    active = local_path(params.active_file) if params.active_file else None
    if active is not None and os.path.isabs(active):
        holder = ls.folders.holding(active)
        if holder is not None:
            return holder
    return ls.default_folder


def across_folders(
    ls: AgentLanguageServer, folder: ServerFolder, params: RunParams
) -> tuple[RunParams, FilesAround | None]:
    """The request as the run in ``folder`` takes it, and how its file access reads the
    attached files of other folders; InvalidParams naming a file of another folder when
    the user's config does not allow reading across folders."""
    from agentls.agent.folder.across_folders import ReadsElsewhere, files_elsewhere

    def holder(path: Any) -> Any:
        found = ls.folders.holding(path)
        return found.root if found is not None else None

    active = local_path(params.active_file) if params.active_file else None
    attachments = [
        a.model_copy(update={"path": local_path(a.path)}) if a.path else a
        for a in params.attachments
    ]
    # `file:` URIs as paths, which is how the run reads them.
    params = params.model_copy(update={"active_file": active, "attachments": attachments})
    elsewhere = files_elsewhere(folder.root, active, attachments, holder)
    if not elsewhere:
        return params, None
    if not folder.config.workspace.read_across_folders:
        raise JsonRpcInvalidParams(elsewhere[0].refusal(folder.root))
    not_files = [f for f in elsewhere if f.what not in ("the attached file", "the active file")]
    if not_files:
        raise JsonRpcInvalidParams(
            f"{not_files[0].what} {not_files[0].path} is in another folder: only files may "
            "be attached from another folder (read-only)"
        )
    readable: dict[Any, FileAccess] = {}
    for found in elsewhere:
        other = ls.folders.holding(found.path)
        if other is not None and found.what == "the attached file":
            readable[found.path] = ls.files_for(other.config)
    # The active file of another folder says nothing of this folder's instructions.
    if any(f.what == "the active file" for f in elsewhere):
        params = params.model_copy(update={"active_file": None})

    def around(files: FileAccess) -> FileAccess:
        return ReadsElsewhere(files, readable)

    return params, around if readable else None
