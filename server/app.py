"""``build_server``: the agentls language server, assembled from small features.

The server object holds everything one server keeps (``AgentLanguageServer.__init__``
lists it: the workspace folders, each with its settings, runs and index
(server/folders.py), the model worker, the edit lock, the inline review book, background
tasks) and hands it to whoever needs it; nothing of a server is kept in module-level
tables, so two servers in one process share nothing. Each module of ``server.features``
registers the handlers of one LSP concern on it. Dependencies that tests or other front
ends may swap (the model adapter, the file access) are injected through ``build_server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer

from agentls import __version__
from agentls.server.folders import Folders, ServerFolder
from agentls.server.index_service import IndexService

if TYPE_CHECKING:
    # Not imported at start-up: pydantic, the config models and the run machinery
    # cost more than pygls itself, and `initialize` must not wait for them. They are
    # loaded in a worker thread right after `initialize` (see features/lifecycle).
    from agentls.agent.config.models import AppConfig
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.folder.settings import FolderSettings
    from agentls.agent.llm.editor import ChannelEditorModels
    from agentls.agent.llm.worker_client import ModelWorker
    from agentls.agent.workspace import FileAccess
    from agentls.server.editor_models import LspEditorModels
    from agentls.server.inline_review import InlineReviews
    from agentls.server.jsonrpc import AgentProtocol
    from agentls.server.runs import FilesFactory, LLMFactory, RunManager

log = logging.getLogger(__name__)

SERVER_NAME = "agentls"
#: The package's one version number, reported in ``initialize``'s serverInfo.
SERVER_VERSION = __version__

F = TypeVar("F", bound=Callable[..., Any])


def lsp_files_factory(ls: AgentLanguageServer) -> FilesFactory:
    """Runs read the editor's buffers and write through ``workspace/applyEdit``."""

    def make(config: AppConfig) -> FileAccess:

        from agentls.server.lsp_files import LspFileAccess

        return LspFileAccess(
            ls,
            config.workspace.root,
            edit_lock=ls.edit_lock,
            reviews=ls.reviews,
            max_file_size=config.indexer.max_file_size,
            client_capabilities=ls.client_capabilities,
            client_confirms_edits=config.editor.confirms_edits or client_confirms_edits(ls),
        )

    return make


def client_confirms_edits(ls: LanguageServer) -> bool:
    """Whether the editor asks its user about every server-initiated edit by itself.

    Eglot does (``eglot-confirm-server-initiated-edits``) and says no with an error
    reply; it declares no capability for it, so it is recognised by its clientInfo.
    """
    info = getattr(ls, "client_info", None)
    return info is not None and "eglot" in (info.name or "").lower()


class AgentLanguageServer(LanguageServer):
    """pygls' LanguageServer plus the services the features share."""

    #: Reads our methods' params as their models (server/jsonrpc.py).
    protocol: AgentProtocol

    def __init__(
        self,
        *,
        llm_factory: LLMFactory | None = None,
        files_factory: FilesFactory | None = None,
        warm_up: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        from agentls.server.converter import agentls_converter
        from agentls.server.jsonrpc import AgentProtocol

        self.converter = agentls_converter()
        super().__init__(
            SERVER_NAME,
            SERVER_VERSION,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=AgentProtocol,
            converter_factory=lambda: self.converter,
        )
        self.client_info: types.ClientInfo | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.warm_up = warm_up
        self.warm_up_task: asyncio.Task[Any] | None = None
        self.ready_task: asyncio.Task[Any] | None = None
        #: The workspace folders, each with its engine, index and runs (server/folders.py).
        self.folders = Folders()
        #: ``initialize``'s options: every folder's editor layer, the folders added later's too.
        self.initialization_options: Any = None
        #: The editor's latest settings (``workspace/didChangeConfiguration``) and trust
        #: (``agent/workspaceTrust``), given to a folder added later as to the others.
        self.editor_settings: Any = None
        self.editor_trust: bool | None = None
        self._llm_factory = llm_factory or self.worker_llm
        #: The editor's models (``agent/modelRequest``), made on first use.
        self._editor_models: LspEditorModels | None = None
        self._model_worker: ModelWorker | None = None
        self._files_factory = files_factory
        #: Keeps the edits of every run and restore of this server (each with its preview
        #: or question) one at a time: one confirm-edit in flight.
        self.edit_lock = asyncio.Lock()
        #: The hunks under inline review and the notes waiting for the model
        #: (server/inline_review.py); made with the other services.
        self._reviews: InlineReviews | None = None

    def load_services(self) -> None:
        """Import and create the review book (blocking: a worker thread)."""
        from agentls.server.inline_review import InlineReviews

        if self._reviews is None:
            self._reviews = InlineReviews(notify=self.protocol.notify)

    @property
    def default_folder(self) -> ServerFolder:
        """The first workspace folder: what a request that names none works on. Before
        ``initialize`` names them, the current directory (as a server without
        workspace folders has); once the editor removed them all, InvalidParams."""
        folder = self.folders.first
        if folder is None and self.ready_task is not None:
            from pygls.exceptions import JsonRpcInvalidParams

            raise JsonRpcInvalidParams("no workspace folder is open (all were removed)")
        if folder is None:
            cwd = Path.cwd()
            folder = self.folders.add(self, cwd.as_uri(), cwd, implicit=True)
        return folder

    async def folder_named(self, uri: str | None) -> ServerFolder:
        """The folder a request names (None: the default), once loaded; InvalidParams
        when ``uri`` is none of the workspace folders (see ``Folders.named``)."""
        await self.wait_ready()
        folder = self.folders.named(uri)
        await folder.wait_ready()
        return folder

    def folder_engine(self) -> FolderEngine:
        """The default folder's engine (language servers, MCP, worktree runs...)."""
        return self.default_folder.engine

    @property
    def index_service(self) -> IndexService:
        """The default folder's index."""
        return self.default_folder.index_service

    @property
    def files_factory(self) -> FilesFactory:
        """How a run's file access is made for its config (its folder's root)."""
        return self._files_factory or lsp_files_factory(self)

    def files_for(self, config: AppConfig) -> FileAccess:
        """The FileAccess a run gets (a restore writes through the same one)."""
        return self.files_factory(config)

    @property
    def model_worker(self) -> ModelWorker:
        """The process that makes the model calls of every run: started on first need or
        by ``agent/prepare``, ended after ``llm.worker_idle_seconds`` without a run or a
        call (a run holds it, see features/run.py)."""
        if self._model_worker is None:
            from agentls.agent.llm.worker_client import ModelWorker

            self._model_worker = ModelWorker(
                idle_seconds=lambda: self.config.llm.worker_idle_seconds
            )
        return self._model_worker

    @property
    def existing_model_worker(self) -> ModelWorker | None:
        """The model worker's client if something used it yet (ping must not import it)."""
        return self._model_worker

    @property
    def editor_models(self) -> LspEditorModels:
        """The client's models (``agent/modelRequest``), whether it offers them or not."""
        if self._editor_models is None:
            from agentls.server.editor_models import LspEditorModels

            self._editor_models = LspEditorModels(self)
        return self._editor_models

    def offered_editor_models(self) -> LspEditorModels | None:
        """The editor's models when the client declares it lends them, else None."""
        from agentls.server.editor_models import client_offers_models

        return self.editor_models if client_offers_models(self.client_capabilities) else None

    def editor_model_list(self) -> ChannelEditorModels | None:
        """The ``EditorModels`` listing of the client's models (None: it lends none)."""
        from agentls.agent.llm.editor import ChannelEditorModels

        channel = self.offered_editor_models()
        return ChannelEditorModels(channel) if channel is not None else None

    def model_access(self, config: AppConfig) -> Any:
        """The model access of a run under ``config``: the editor's for an ``editor/…``
        model (an error at the first call when this client lends none), else the
        factory's (by default the model worker)."""
        from agentls.agent.llm.editor import llm_for_model

        return llm_for_model(
            config.llm.model,
            editor=self.offered_editor_models(),
            otherwise=lambda: self._llm_factory(config),
        )

    def worker_llm(self, config: AppConfig) -> Any:
        """The default model access: litellm's calls in the model worker process, so that
        its per-call and per-chunk CPU work never holds the GIL this loop needs to answer
        the editor (see agent/llm/worker.py)."""
        from agentls.agent.llm.worker_client import ProcessLLM

        return ProcessLLM(config.llm, self.model_worker)

    async def close_model_worker(self) -> None:
        if self._model_worker is not None:
            await self._model_worker.close()

    async def wait_ready(self) -> None:
        """Until the configuration is loaded (right after ``initialize``)."""
        if self.ready_task is not None:
            await asyncio.shield(self.ready_task)
        self.load_services()

    @property
    def settings(self) -> FolderSettings:
        """The default folder's settings and trust, kept by its engine."""
        return self.default_folder.settings

    @property
    def runs(self) -> RunManager:
        """The default folder's runs (``folders.with_run`` finds any run by its id)."""
        return self.default_folder.runs

    @property
    def reviews(self) -> InlineReviews:
        """The inline review book of every folder's runs."""
        if self._reviews is None:
            self.load_services()
        assert self._reviews is not None
        return self._reviews

    @property
    def active_runs(self) -> int:
        """Runs in flight in every folder (without loading anything)."""
        return sum(folder.active_runs for folder in self.folders)

    @property
    def config(self) -> AppConfig:
        return self.settings.config

    @property
    def root(self) -> Path:
        return self.settings.root

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        """Start a background task: keep a reference, log its failure."""
        task = asyncio.get_running_loop().create_task(coro, name=f"agentls-{name}")
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and (exc := t.exception()) is not None:
                log.error("background task %s failed", name, exc_info=exc)

        task.add_done_callback(done)
        return task

    def handler(self, method: str, *, notification: bool = False) -> Callable[[F], F]:
        """Register the decorated function as the handler of ``method``, ``guarded``."""

        def register(fn: F) -> F:
            self.feature(method)(guarded(method, notification=notification)(fn))
            return fn

        return register

    def show_error(self, message: str) -> None:
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=message)
        )


#: What a handler may raise on purpose: the request was cancelled, or answers an error.
_PASS_THROUGH = (asyncio.CancelledError, JsonRpcException)


def guarded(name: str, *, notification: bool = False) -> Callable[[F], F]:
    """Wrap a handler so a bug in one feature never takes down the server.

    Requests answer with an InternalError naming the feature; notifications
    (``notification=True``) are logged and dropped. Cancellation and deliberate
    JSON-RPC errors pass through.
    """

    @contextlib.contextmanager
    def guard() -> Iterator[None]:
        # Whatever this does not re-raise is swallowed: the handler then returns None.
        try:
            yield
        except _PASS_THROUGH:
            raise
        except Exception as exc:
            log.exception("%s failed", name)
            if not notification:
                raise JsonRpcInternalError(f"{name} failed: {type(exc).__name__}: {exc}") from exc

    def decorate(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with guard():
                    return await fn(*args, **kwargs)
                return None

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run_sync(*args: Any, **kwargs: Any) -> Any:
            with guard():
                return fn(*args, **kwargs)
            return None

        return run_sync  # type: ignore[return-value]

    return decorate


def build_server(
    *,
    llm_factory: LLMFactory | None = None,
    files_factory: FilesFactory | None = None,
    warm_up: Callable[[], Awaitable[None]] | None = None,
) -> AgentLanguageServer:
    """A ready-to-start server. ``llm_factory=None`` makes the model calls in a worker
    process; ``files_factory=None`` uses LspFileAccess (editor buffers +
    workspace/applyEdit); ``warm_up=None`` runs server/warm_up.py's ``warm_up`` after
    ``initialized`` (the worker itself waits for a sign of a run: ``agent/prepare``)."""
    from agentls.server.features import (
        agents,
        attach_candidates,
        cancel,
        checkpoints,
        commands,
        configuration,
        editor_models,
        folders,
        lifecycle,
        message,
        models,
        ping,
        prepare,
        review,
        run,
        sessions,
        worktrees,
    )

    ls = AgentLanguageServer(llm_factory=llm_factory, files_factory=files_factory, warm_up=warm_up)
    for feature in (
        lifecycle,
        configuration,
        folders,
        run,
        cancel,
        message,
        agents,
        models,
        commands,
        attach_candidates,
        sessions,
        ping,
        prepare,
        review,
        checkpoints,
        worktrees,
        editor_models,
    ):
        feature.register(ls)
    return ls
