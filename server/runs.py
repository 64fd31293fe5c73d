"""RunManager: the runs in flight, each an asyncio task with its own cancel token.

``agent/run`` hands its params here. The manager snapshots the config, creates the
run's progress, observer, approver and file access, and starts ``agent.run.run_agent``
as a task of its own, so the request handler can be cancelled (``$/cancelRequest``)
without cancelling the run mid-tool: the handler sets the run's ``CancelToken``, waits
for the run to finish cleanly, then re-raises. ``agent/cancel`` and
``window/workDoneProgress/cancel`` set the same token. Several runs may be in flight
at once, one per session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from agentls.agent.config.models import AppConfig
from agentls.agent.contract import RunResult
from agentls.agent.errors import AgentError
from agentls.agent.events import AgentEvent, RunState, StatusChanged, WorktreeSetup
from agentls.agent.folder.runs import RunRefused
from agentls.agent.run_messages import MessageMode, PendingMessage
from agentls.agent.workspace import DiskFileAccess, FileAccess
from agentls.server.approver import LspApprover
from agentls.server.inline_review import InlineReviews
from agentls.server.observer import (
    LspRunObserver,
    client_mirrors_commands,
    client_shows_notices,
)
from agentls.server.progress import RunProgress
from agentls.server.protocol import RunParams
from agentls.server.run_handle import RunHandle, task_context

if TYPE_CHECKING:
    # Imported on first use: agent.run pulls in the loop and every tool, agent.mcp
    # the MCP SDK (~2 s together), which `initialize` must not wait for.
    from agentls.agent.exec.process import ChangesProbe
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.navigation import CodeNavigator
    from agentls.agent.policy.approval import Approver
    from agentls.agent.problems import ProblemSource
    from agentls.agent.run import RunOutcome
    from agentls.indexer.index import RepoIndex
    from agentls.indexer.symbol_source import SymbolSource

log = logging.getLogger(__name__)

#: How long a cancelled request waits for its run to stop cleanly before forcing it.
CANCEL_GRACE_SECONDS = 10.0


ConfigProvider = Callable[[], AppConfig]
LLMFactory = Callable[[AppConfig], Any]
FilesFactory = Callable[[AppConfig], FileAccess]
#: What a run's file access is wrapped in (another folder's attached files made readable).
FilesAround = Callable[[FileAccess], FileAccess]


@dataclass(frozen=True)
class RunSources:
    """Where the server's runs get their parts, asked again for every run: the settings,
    the index and what it knows change while the server lives."""

    config: ConfigProvider
    llm: LLMFactory
    files: FilesFactory
    index: Callable[[], RepoIndex | None] = lambda: None
    #: The index's symbols (None: the run keeps its own, in this process).
    symbols: Callable[[], SymbolSource | None] = lambda: None
    #: What a command changed, from the live index.
    changes_probe: Callable[[], ChangesProbe | None] = lambda: None
    #: Brings the settings up to date (the folder's trust may have changed) and returns
    #: what the user must hear at the start of the run.
    notices: Callable[[], tuple[str, ...]] = lambda: ()
    #: Whether the folder is trusted (a workspace prompt file may then choose the model).
    trusted: Callable[[], bool] = lambda: False
    #: Who knows the problems of the files under a config: the editor, or language servers
    #: the server started (None: nobody, or diagnostics are off).
    problems: Callable[[AppConfig], ProblemSource | None] = lambda config: None
    #: Who answers a run's questions about the code by meaning: the editor chained before
    #: the language servers the folder engine starts (None: the folder engine's alone).
    navigator: Callable[[AppConfig], CodeNavigator | None] | None = None


class RunManager:
    """The server's runs in flight; ``reviews`` is the server's inline review book, whose
    notes each run reads while it lives."""

    def __init__(
        self,
        ls: LanguageServer,
        sources: RunSources,
        reviews: InlineReviews,
        engine: FolderEngine,
    ) -> None:
        self._ls = ls
        self.engine = engine
        self._sources = sources
        self._reviews = reviews
        #: What the server adds to each run the engine's book has in flight, by run id.
        self.runs: dict[str, RunHandle] = {}

    def _open_documents(self, root: Path) -> tuple[str, ...]:
        """File-system paths of the documents open in the editor, in the folder ``root``."""
        paths = (to_fs_path(uri) for uri in list(self._ls.workspace.text_documents))
        inside = os.path.realpath(root).rstrip(os.sep) + os.sep
        return tuple(p for p in paths if p and os.path.realpath(p).startswith(inside))

    # -- notifications ------------------------------------------------------------------
    def notify(self, method: str, params: dict[str, Any]) -> None:
        if method == types.WINDOW_LOG_MESSAGE:
            self._ls.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType(params["type"]), message=params["message"]
                )
            )
            return
        self._ls.protocol.notify(method, params)

    async def aclose(self) -> None:
        """End what the runs share (MCP connections, language servers); at shutdown."""
        await self.engine.aclose()

    def _warn(self, message: str) -> None:
        self._ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"agentls: {message}")
        )

    # -- agent/run ----------------------------------------------------------------------
    async def run(
        self, params: RunParams, *, files_around: FilesAround | None = None
    ) -> dict[str, Any]:
        notices = self._sources.notices()
        config = self._sources.config()
        agents = self.engine.agents(config)
        if not agents.exists(params.agent):
            known = ", ".join(agents.names())
            raise JsonRpcInvalidParams(f"unknown agent {params.agent!r}; known agents: {known}")
        try:
            ticket = self.engine.runs.begin(params.run_id, params.session_id, params.agent)
        except RunRefused as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        handle = self.runs[ticket.run_id] = RunHandle(ticket)
        handle.files_around = files_around
        try:
            if params.worktree is not None:
                return await self._in_worktree(handle, params, config, notices)
            return await self._run(handle, params, config, notices)
        finally:
            self.runs.pop(ticket.run_id, None)
            unread = self.engine.runs.end(ticket.run_id)
            if unread:
                texts = "; ".join(repr(m.text[:80]) for m in unread)
                self._warn(f"the run ended before it could read your message(s): {texts}")

    # -- runs in worktrees of their own ----------------------------------------------------
    async def _in_worktree(
        self, handle: RunHandle, params: RunParams, config: AppConfig, notices: tuple[str, ...]
    ) -> dict[str, Any]:
        """The run in its worktree (made or found, set up when new, held while the run
        works); its result with the worktree as it is after the run's commit."""
        from agentls.agent.folder.worktree_book import worktree_info
        from agentls.agent.folder.worktree_runs import WorktreeError

        assert params.worktree is not None
        try:
            worktree = await self.engine.hold_worktree(config.workspace.root, params.worktree.name)
        except AgentError as exc:  # cannot be made, or has a run in flight
            raise JsonRpcInvalidParams(str(exc)) from None
        handle.worktree_run = worktree
        config = worktree.config_for(config)
        try:
            failed = await worktree.set_up(config, self._log_setup)
            if failed:
                self._warn(failed)
                result = self._failed_result(handle, failed)
            else:
                result = await self._run(handle, params, config, notices)
        finally:
            try:
                await worktree.finish(params.prompt)
            except WorktreeError as exc:
                self._warn(f"the changes of worktree {worktree.name} were not committed: {exc}")
            finally:
                self.engine.release_worktree(worktree)
        info = await asyncio.to_thread(worktree_info, worktree.worktree, running=False)
        result["worktree"] = info.to_wire()
        return result

    def _log_setup(self, event: AgentEvent) -> None:
        """A new worktree's set-up step, to the editor's log as it comes."""
        if not isinstance(event, WorktreeSetup):
            return
        text = {"started": f"$ {event.text}"}.get(event.kind, event.text)
        self.notify(
            types.WINDOW_LOG_MESSAGE,
            {
                "type": types.MessageType.Info,
                "message": f"[worktree {event.worktree} setup] {text}",
            },
        )

    async def _run(
        self,
        handle: RunHandle,
        params: RunParams,
        config: AppConfig,
        notices: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Progress and observer up, the run as a task of its own, its result; whatever
        happens the progress ends and the client gets an answer."""
        run_id = handle.run_id

        def on_progress_cancel() -> None:
            self.cancel(run_id, "cancelled from the progress UI")

        progress = handle.progress = RunProgress(self._ls, on_cancel=on_progress_cancel)
        observer = handle.observer = LspRunObserver(
            run_id,
            self.notify,
            progress=progress,
            mirror_commands=client_mirrors_commands(self._ls.client_capabilities),
            show_notices=client_shows_notices(self._ls.client_capabilities),
        )
        outcome: RunOutcome | None = None
        try:
            await progress.begin(
                f"Agent: {params.agent}",
                token=params.work_done_token,
                fallback_token=f"agentls/run/{run_id}",
            )
            task = handle.task = await self._start(handle, params, config, observer, notices)
            outcome = await self._outcome(handle, task)
            return outcome.to_result()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # run_agent should not raise; never leave the client hanging
            log.exception("run %s crashed", run_id)
            observer(StatusChanged(RunState.FAILED, f"{type(exc).__name__}: {exc}"))
            return self._failed_result(handle, f"internal error: {type(exc).__name__}: {exc}")
        finally:
            self._reviews.run_ended(handle)
            observer.close()
            if outcome is not None:
                status = outcome.state.status
            else:
                status = "partial" if handle.token.cancelled else "failed"
            progress.end(status)

    async def _start(
        self,
        handle: RunHandle,
        params: RunParams,
        config: AppConfig,
        observer: LspRunObserver,
        notices: tuple[str, ...],
    ) -> asyncio.Task[RunOutcome]:
        """``run_agent`` with this editor's parts, started as a task of its own (in a
        context that names the run, so the file access knows whose edit it sends)."""
        from agentls.agent.run import FrontEnd, run_agent

        request = params.to_request(run_id=handle.run_id, session_id=handle.session_id)
        approver: Approver = LspApprover(self._ls, handle.run_id, cancel=handle.token)
        # The workspace's programs (MCP servers here, hooks in the run) are asked about
        # through the run's approver; the folder engine remembers the answers.
        registry = await self.engine.mcp_registry(config, warn=self._warn, approver=approver)
        worktree = handle.worktree_run
        around = handle.files_around or (lambda files: files)
        if worktree is None:
            front_end = FrontEnd(
                around(self._sources.files(config)),
                approver,
                observer=observer,
                cancel=handle.token,
                index=self._sources.index(),
                symbols=self._sources.symbols(),
                registry=registry,
                # the live index reports what a command changed
                changes_probe=self._sources.changes_probe(),
                # what the user decided about edits under inline review reaches the model
                inbox=self._reviews.run_started(handle),
                # the repo map ranks the files open in the editor higher
                open_documents=self._open_documents(config.workspace.root),
                notices=notices,
                trusted=self._sources.trusted(),
                approvals=self.engine.approvals,
                messages=handle.messages,
                llm_for=self._sources.llm,
                problems=self._sources.problems(config),
                # the editor's providers, then the language servers this server starts
                navigator=self._sources.navigator(config)
                if self._sources.navigator is not None
                else self.engine.navigator(config),
            )
            symbols = None
        else:
            # In its worktree: files on that folder's disk, edits reviewed when the branch
            # is applied (engine policy), its own index and symbols (parsed in a process of
            # their own: on a thread here they held the GIL away from the editor's
            # requests). The editor's buffers, problems and open documents are of the
            # user's tree, so none are used.
            files = DiskFileAccess(
                config.workspace.root, max_file_size=config.indexer.max_file_size
            )
            index, symbols = await worktree.own_index(config)
            front_end = FrontEnd(
                files,
                worktree.reviewed_at_apply(approver, files),
                observer=observer,
                cancel=handle.token,
                index=index,
                symbols=symbols,
                registry=registry,
                notices=notices,
                trusted=self._sources.trusted(),
                approvals=self.engine.approvals,
                messages=handle.messages,
                llm_for=self._sources.llm,
            )
        task = asyncio.create_task(
            run_agent(request, front_end, config=config, llm=self._sources.llm(config)),
            name=f"agentls-run-{handle.run_id}",
            context=task_context(handle),
        )
        if symbols is not None:
            closing = symbols.close
            task.add_done_callback(lambda _: self.engine.close_soon(closing))
        return task

    @staticmethod
    async def _outcome(handle: RunHandle, task: asyncio.Task[RunOutcome]) -> RunOutcome:
        """The run's outcome. ``$/cancelRequest`` on the request (or shutdown) cancels
        this await, not the run: the run is stopped cleanly, then pygls answers
        RequestCancelled."""
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            handle.token.cancel("cancelled by the client ($/cancelRequest)")
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(task), CANCEL_GRACE_SECONDS)
            if not task.done():
                task.cancel()
            raise

    @staticmethod
    def _failed_result(handle: RunHandle, message: str) -> dict[str, Any]:
        failed = RunResult.failed(message, run_id=handle.run_id, session_id=handle.session_id)
        return failed.to_wire()

    # -- cancellation -------------------------------------------------------------------
    def cancel(self, run_id: str, reason: str = "cancelled by the user") -> bool:
        """Ask run ``run_id`` to stop; False if no such run is in flight."""
        return self.engine.runs.cancel(run_id, reason)

    def message(self, run_id: str, text: str, mode: MessageMode) -> PendingMessage:
        """Give run ``run_id`` the user's message; RunMessageError when it cannot take it."""
        return self.engine.runs.message(run_id, text, mode)

    def cancel_all(self, reason: str) -> None:
        self.engine.runs.cancel_all(reason)

    async def wait_all(self, grace: float) -> None:
        tasks = [h.task for h in self.runs.values() if h.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=grace)
