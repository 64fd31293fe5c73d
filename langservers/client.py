"""One language server process, driven as an LSP client (pygls's ``LanguageClient``).

What agentls asks of it is narrow: open a document with a text (or change it to another),
and hear ``textDocument/publishDiagnostics`` for exactly that text. A document's version
goes up with every text sent; a server that declares ``versionSupport``'s counterpart
(publishes ``version``) is settled when it publishes that version. One that publishes
without versions is settled by its first publication after the change plus a quiet spell,
since several such servers publish in phases (syntax, then semantics).

The process is started here rather than with ``start_io``, which pipes the server's stderr
and never reads it (a chatty server would block on a full pipe): stderr is drained into a
short tail kept for the crash report. The server gets a process group of its own and is
ended with it, so that what it starts (tsserver, a type checker's workers) goes too.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import signal
import threading
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcMethodNotFound
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from agentls import __version__
from agentls.agent.config.models import LanguageServerConfig
from agentls.agent.exec.process import child_env

log = logging.getLogger(__name__)

T = TypeVar("T")

#: After a publication without a version, how long without another before it counts.
QUIET_SECONDS = 0.2
#: Allowed for ``shutdown`` to be answered before the process is killed.
SHUTDOWN_SECONDS = 2.0
#: Lines of the server's stderr kept for the report when it dies.
STDERR_TAIL = 20
#: Documents kept open per server; the least recently used beyond it are closed.
MAX_OPEN_DOCUMENTS = 40
_OWN_GROUP = hasattr(os, "killpg")


class LanguageServerFailed(Exception):
    """The server could not be started or stopped answering; the message says why."""


@dataclass
class _Doc:
    language_id: str
    version: int
    text: str
    #: The document's publications before its current text was sent.
    sent_seq: int = 0


@dataclass
class _Published:
    version: int | None
    diagnostics: list[lsp.Diagnostic]
    #: This document's publications so far, counting this one.
    seq: int
    at: float


@dataclass(frozen=True)
class Sent:
    """A text sent for a document: what its diagnostics must answer to."""

    path: str  # absolute file-system path
    version: int
    #: The document's publications before the text was sent.
    seq: int


class _Protocol(LanguageServerProtocol):
    def _handle_notification(self, method_name: str, params: Any) -> None:
        try:
            self._get_handler(method_name)
        except JsonRpcMethodNotFound:
            # Servers' own notifications (pyright/beginProgress...) mean nothing here, and
            # pygls would log a warning for each.
            return
        super()._handle_notification(method_name, params)


def path_key(path: str | Path) -> str:
    """One spelling per file: servers write URIs their own way (case of a drive letter,
    percent-encoding), so documents are keyed by their normalised file-system path."""
    return os.path.normcase(os.path.normpath(str(path)))


@dataclass
class Connection:
    """A running language server for ``root``; ``program`` is ``entry.command[0]`` as found
    on PATH."""

    entry: LanguageServerConfig
    program: str
    root: Path
    docs: collections.OrderedDict[str, _Doc] = field(default_factory=collections.OrderedDict)
    published: dict[str, _Published] = field(default_factory=dict)
    #: Why it cannot be used (start failed, crashed); None while it can.
    failure: str | None = None
    ready: bool = False
    #: What the server said it can do (its ``initialize`` answer).
    capabilities: lsp.ServerCapabilities | None = None

    def __post_init__(self) -> None:
        self._client = LanguageClient("agentls", __version__, protocol_cls=_Protocol)
        self._process: asyncio.subprocess.Process | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._stop = threading.Event()
        self._exited: asyncio.Future[None] | None = None
        self._signal: dict[str, asyncio.Event] = {}
        self._pinned: collections.Counter[str] = collections.Counter()
        self._register()

    @property
    def name(self) -> str:
        return self.entry.name

    # -- the server's messages -----------------------------------------------------------
    def _register(self) -> None:
        def publish(params: lsp.PublishDiagnosticsParams) -> None:
            self._published(params)

        def configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [self._setting(item.section) for item in params.items]

        def folders(params: None) -> list[lsp.WorkspaceFolder]:
            return [self._folder()]

        def apply_edit(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
            return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason="read-only client")

        def log_message(params: lsp.LogMessageParams) -> None:
            log.debug("%s: %s", self.name, params.message)

        def show_message(params: lsp.ShowMessageParams) -> None:
            log.info("%s says: %s", self.name, params.message)

        handlers: dict[str, Any] = {
            lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            lsp.WORKSPACE_CONFIGURATION: configuration,
            lsp.WORKSPACE_WORKSPACE_FOLDERS: folders,
            lsp.WORKSPACE_APPLY_EDIT: apply_edit,
            lsp.WINDOW_LOG_MESSAGE: log_message,
            lsp.WINDOW_SHOW_MESSAGE: show_message,
        }
        for method in (
            lsp.CLIENT_REGISTER_CAPABILITY,
            lsp.CLIENT_UNREGISTER_CAPABILITY,
            lsp.WINDOW_WORK_DONE_PROGRESS_CREATE,
            lsp.WINDOW_SHOW_MESSAGE_REQUEST,
            lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
            lsp.WORKSPACE_INLAY_HINT_REFRESH,
            lsp.WORKSPACE_DIAGNOSTIC_REFRESH,
            lsp.WORKSPACE_CODE_LENS_REFRESH,
        ):
            handlers[method] = _answers_nothing()
        for method, handler in handlers.items():
            self._client.feature(method)(handler)

    def _setting(self, section: str | None) -> Any:
        value: Any = self.entry.settings
        for part in (section or "").split("."):
            if not part:
                continue
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    def _folder(self) -> lsp.WorkspaceFolder:
        return lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name or str(self.root))

    def _published(self, params: lsp.PublishDiagnosticsParams) -> None:
        path = to_fs_path(params.uri)
        if not path:
            return
        key = path_key(path)
        loop = asyncio.get_running_loop()
        earlier = self.published.get(key)
        seq = earlier.seq + 1 if earlier is not None else 1
        self.published[key] = _Published(params.version, list(params.diagnostics), seq, loop.time())
        self._wake(key)

    def _wake(self, key: str) -> None:
        event = self._signal.pop(key, None)
        if event is not None:
            event.set()

    # -- start and stop ------------------------------------------------------------------
    async def start(self, wait: float) -> None:
        """Start the process and initialize it; raises LanguageServerFailed."""
        loop = asyncio.get_running_loop()
        self._exited = loop.create_future()
        try:
            self._process = process = await asyncio.create_subprocess_exec(
                self.program,
                *self.entry.command[1:],
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=str(self.root),
                # A language server may run the project's code (plugins, build files a
                # command wrote): it gets a command's environment, without the API key.
                env=child_env(),
                process_group=0 if _OWN_GROUP else None,
            )
        except OSError as exc:
            raise self._fail(f"could not start {self.program}: {exc}") from None
        assert process.stdin is not None and process.stdout is not None
        self._client.protocol.set_writer(process.stdin)
        self._tasks = [
            asyncio.create_task(self._read(process.stdout), name=f"lsp-{self.name}-read"),
            asyncio.create_task(self._drain(process), name=f"lsp-{self.name}-stderr"),
            asyncio.create_task(self._watch(process), name=f"lsp-{self.name}-exit"),
        ]
        params = lsp.InitializeParams(
            process_id=os.getpid(),
            client_info=lsp.ClientInfo(name="agentls", version=__version__),
            root_uri=self.root.as_uri(),
            root_path=str(self.root),
            workspace_folders=[self._folder()],
            initialization_options=self.entry.initialization_options,
            capabilities=_CAPABILITIES,
        )
        try:
            initialized = await self._answer(self._client.initialize_async(params), wait)
        except LanguageServerFailed as exc:
            raise self._fail(f"{self.name} did not initialize: {exc}") from None
        self.capabilities = initialized.capabilities
        self._client.initialized(lsp.InitializedParams())
        if self.entry.settings:
            self._client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings=self.entry.settings)
            )
        self.ready = True

    async def _answer(self, request: Awaitable[T], wait: float) -> T:
        """``request``'s answer, unless the process exits or ``wait`` seconds pass first."""
        assert self._exited is not None
        answer: asyncio.Future[T] = asyncio.ensure_future(request)
        either: set[asyncio.Future[Any]] = {answer, self._exited}
        done, _ = await asyncio.wait(either, timeout=wait, return_when="FIRST_COMPLETED")
        if answer in done:
            return answer.result()
        answer.cancel()
        if self._exited in done:
            raise LanguageServerFailed(self._exit_report())
        raise LanguageServerFailed(f"no answer within {wait:g} s")

    @property
    def client(self) -> LanguageClient:
        """The LSP client, to send requests through ``request``."""
        return self._client

    async def request(self, request: Awaitable[T], wait: float) -> T:
        """``request``'s answer: LanguageServerFailed when the server is gone, exits before
        answering or takes longer than ``wait`` seconds (an error answer raises pygls's
        exception as it is)."""
        if self.failure is not None:
            raise LanguageServerFailed(self.failure)
        try:
            return await self._answer(request, wait)
        except LanguageServerFailed as exc:
            if self._exited is not None and self._exited.done():
                raise self._fail(self._exit_report()) from None
            raise exc

    def _fail(self, why: str) -> LanguageServerFailed:
        if self.failure is None:
            self.failure = why
        self.ready = False
        for key in list(self._signal):
            self._wake(key)
        return LanguageServerFailed(why)

    def _exit_report(self) -> str:
        code = self._process.returncode if self._process is not None else None
        tail = " | ".join(line for line in self._stderr if line.strip())[-400:]
        return f"{self.name} exited (code {code})" + (f": {tail}" if tail else "")

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            await run_async(
                stop_event=self._stop,
                reader=stdout,
                protocol=self._client.protocol,
                logger=log,
                error_handler=lambda exc, source: log.debug("%s: %s", self.name, exc),
            )

    async def _drain(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        while line := await process.stderr.readline():
            text = line.decode("utf-8", "replace").rstrip()
            self._stderr.append(text)
            log.debug("%s stderr: %s", self.name, text)

    async def _watch(self, process: asyncio.subprocess.Process) -> None:
        await process.wait()
        assert self._exited is not None
        if not self._exited.done():
            self._exited.set_result(None)
        if not self._stop.is_set():  # not ended by us: it crashed
            # The stderr tail may still be arriving.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._tasks[1]), 0.5)
            self._fail(self._exit_report())
            log.warning("language server %s", self.failure)

    async def close(self) -> None:
        """``shutdown`` and ``exit`` when it is up, then end its process group."""
        process = self._process
        if process is None:
            return
        if self.ready and process.returncode is None:
            with contextlib.suppress(Exception):
                await self._answer(self._client.shutdown_async(None), SHUTDOWN_SECONDS)
                self._client.exit(None)
        self._stop.set()
        self.ready = False
        if process.stdin is not None:
            process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 1.0)
        self._kill(process)
        await process.wait()
        for task in self._tasks:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(task, 1.0)
        for task in self._tasks:
            task.cancel()
        if self.failure is None:
            self.failure = f"{self.name} was stopped"

    @staticmethod
    def _kill(process: asyncio.subprocess.Process) -> None:
        """End what is left of its group (a server's children outlive its ``exit``)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if _OWN_GROUP:
                os.killpg(process.pid, signal.SIGKILL)
            elif process.returncode is None:
                process.kill()

    # -- documents -----------------------------------------------------------------------
    def sync(self, path: str, text: str) -> Sent:
        """Make ``text`` the server's text of ``path`` (open it, or change it when it
        differs) and say what its diagnostics must answer to."""
        key = path_key(path)
        doc = self.docs.get(key)
        published = self.published.get(key)
        seq = published.seq if published is not None else 0
        uri = from_fs_path(path) or Path(path).as_uri()
        if doc is None:
            ext = os.path.splitext(path)[1].lower()
            # A publication from before the document was opened (a workspace-wide check)
            # does not answer for this text.
            doc = _Doc(self.entry.files.get(ext, "plaintext"), 1, text, seq)
            self.docs[key] = doc
            self._client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(
                    text_document=lsp.TextDocumentItem(
                        uri=uri, language_id=doc.language_id, version=1, text=text
                    )
                )
            )
            self._close_old()
        elif doc.text != text:
            self.docs.move_to_end(key)
            doc.version += 1
            doc.text = text
            doc.sent_seq = seq
            self._client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
                    content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        else:
            self.docs.move_to_end(key)
        return Sent(key, doc.version, doc.sent_seq)

    def _close_old(self) -> None:
        while len(self.docs) > MAX_OPEN_DOCUMENTS:
            for key in self.docs:
                if not self._pinned[key]:
                    break
            else:
                return
            self.docs.pop(key)
            self.published.pop(key, None)
            uri = from_fs_path(key) or Path(key).as_uri()
            self._client.text_document_did_close(
                lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
            )

    @contextlib.contextmanager
    def pinned(self, path: str) -> Any:
        """Keep ``path`` open while an edit of it is followed."""
        key = path_key(path)
        self._pinned[key] += 1
        try:
            yield
        finally:
            self._pinned[key] -= 1

    async def settled(self, sent: Sent, wait: float | None) -> list[lsp.Diagnostic] | None:
        """The diagnostics the server published for ``sent``'s text, once settled; None
        when they did not come within ``wait`` seconds (None: no limit) or the server
        is gone."""
        loop = asyncio.get_running_loop()
        deadline = None if wait is None else loop.time() + wait
        while self.failure is None:
            published = self.published.get(sent.path)
            pause: float | None = None
            if published is not None and published.seq > sent.seq:
                if published.version is not None:
                    if published.version >= sent.version:
                        return published.diagnostics
                else:
                    quiet = published.at + QUIET_SECONDS - loop.time()
                    if quiet <= 0:
                        return published.diagnostics
                    pause = quiet
            if deadline is not None:
                left = deadline - loop.time()
                if left <= 0:
                    return None
                pause = left if pause is None else min(pause, left)
            event = self._signal.setdefault(sent.path, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), pause)
        return None


def _answers_nothing() -> Any:
    """A handler of its own per method: pygls marks the functions it registers."""

    def answer(params: Any) -> None:
        return None

    return answer


_CAPABILITIES = lsp.ClientCapabilities(
    general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
    text_document=lsp.TextDocumentClientCapabilities(
        synchronization=lsp.TextDocumentSyncClientCapabilities(
            dynamic_registration=False, will_save=False, did_save=False
        ),
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
            version_support=True, related_information=False
        ),
        # Code navigation (langservers/navigation.py): plain answers, a symbol tree.
        hover=lsp.HoverClientCapabilities(
            content_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText]
        ),
        document_symbol=lsp.DocumentSymbolClientCapabilities(
            hierarchical_document_symbol_support=True
        ),
        definition=lsp.DefinitionClientCapabilities(link_support=False),
        implementation=lsp.ImplementationClientCapabilities(link_support=False),
        references=lsp.ReferenceClientCapabilities(),
        call_hierarchy=lsp.CallHierarchyClientCapabilities(),
        rename=lsp.RenameClientCapabilities(prepare_support=True),
    ),
    workspace=lsp.WorkspaceClientCapabilities(
        configuration=True,
        workspace_folders=True,
        # A rename's edit comes back as an answer (never applied by the server itself).
        workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True),
        symbol=lsp.WorkspaceSymbolClientCapabilities(),
        did_change_configuration=lsp.DidChangeConfigurationClientCapabilities(
            dynamic_registration=False
        ),
    ),
    window=lsp.WindowClientCapabilities(work_done_progress=False),
)
