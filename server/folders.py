"""The workspace folders the server serves: one ``ServerFolder`` each, in ``Folders``.

A multi-root workspace sends several folders in ``initialize.workspaceFolders`` and adds
or removes them with ``workspace/didChangeWorkspaceFolders``. Each folder keeps what a
single-folder server kept for its one root: its engine (settings layers, trust, language
servers, MCP connections, program approvals, the runs in flight, worktrees), its index
(with its watcher and symbol process), the manager of its runs, and the editor's
problems and navigator made for its root. What is the window's stays on the server: the
model worker, the editor's models, the inline review book, the edit lock.

A folder is named on the wire by its URI as the client sent it; the first folder is the
default, so a client that never names one is served as before. A folder starts only what
it needs: its index at once (a run's system prompt wants it), its language servers and
MCP connections at its first run, never a model worker of its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from agentls.server.index_service import PROGRESS_TOKEN, IndexService

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.folder.settings import FolderSettings, SettingsUpdate
    from agentls.agent.navigation import CodeNavigator
    from agentls.agent.problems import ProblemSource
    from agentls.server.app import AgentLanguageServer
    from agentls.server.navigation import EditorNavigator
    from agentls.server.problems import EditorProblems
    from agentls.server.runs import RunManager

log = logging.getLogger(__name__)


def folder_path(uri: str) -> Path | None:
    """The folder's path on disk (None: not a ``file:`` URI)."""
    path = to_fs_path(uri)
    return Path(os.path.abspath(path)) if path else None


class ServerFolder:
    """One workspace folder's worth of the server (see the module's doc)."""

    def __init__(self, ls: AgentLanguageServer, uri: str, root: Path, *, index: str) -> None:
        self._ls = ls
        self.uri = uri
        self.root = root
        #: The name it has in messages (its directory's name).
        self.name = root.name or str(root)
        title = "Indexing…" if index == PROGRESS_TOKEN else f"Indexing {self.name}…"
        self.index_service = IndexService(ls, spawn=ls.spawn, progress_token=index, title=title)
        self._engine: FolderEngine | None = None
        self._runs: RunManager | None = None
        #: The editor's problems and providers for this root, each kept with what it was
        #: made for: a changed config or trust makes a new one.
        self._editor_problems: tuple[Any, EditorProblems] | None = None
        self._editor_navigator: tuple[Any, EditorNavigator] | None = None
        #: Set when the editor removed the folder: requests naming it are refused.
        self.removed = False
        #: The stand-in folder of a server before ``initialize`` (see ``Folders.add``).
        self.implicit = False
        #: The loading of a folder added while the server runs (its settings, in a
        #: thread); None for the folders of ``initialize``, loaded with the server.
        self.ready_task: asyncio.Task[Any] | None = None

    def __repr__(self) -> str:
        return f"ServerFolder({self.uri!r})"

    async def wait_ready(self) -> None:
        """Until its settings are loaded; InvalidParams once the editor removed it."""
        await self._ls.wait_ready()
        if self.ready_task is not None:
            await asyncio.shield(self.ready_task)
        if self.removed:
            raise JsonRpcInvalidParams(removed_message(self.uri, self._ls.folders))

    async def wait_loaded(self) -> None:
        """Until a folder added while the server runs has its settings (removed or not)."""
        if self.ready_task is not None:
            await asyncio.shield(self.ready_task)

    # -- the engine and its settings ---------------------------------------------------
    @property
    def engine(self) -> FolderEngine:
        """The engine's object for this folder, kept while the folder is open."""
        if self._engine is None:
            from agentls.agent.folder.media import EDITOR
            from agentls.compose import folder_engine

            self._engine = folder_engine(EDITOR)
        return self._engine

    @property
    def settings(self) -> FolderSettings:
        return self.engine.settings

    @property
    def config(self) -> AppConfig:
        return self.settings.config

    @property
    def runs(self) -> RunManager:
        """The manager of this folder's runs (made on first use)."""
        if self._runs is None:
            from agentls.server.runs import RunManager, RunSources

            ls = self._ls
            sources = RunSources(
                config=lambda: self.config,
                llm=ls.model_access,
                files=ls.files_factory,
                index=lambda: self.index_service.index,
                symbols=lambda: self.index_service.symbol_source(),
                changes_probe=lambda: self.index_service.changes_probe(),
                notices=self.run_notices,
                trusted=lambda: self.settings.trusted,
                problems=self.problem_source,
                navigator=self.navigator,
            )
            self._runs = RunManager(ls, sources, ls.reviews, self.engine)
        return self._runs

    @property
    def active_runs(self) -> int:
        """Runs in flight (without loading anything)."""
        return len(self._runs.runs) if self._runs is not None else 0

    def has_run(self, run_id: str) -> bool:
        return self._runs is not None and run_id in self._runs.runs

    def run_notices(self) -> tuple[str, ...]:
        """Before a run: pick up a change of the folder's trust (``agentls trust`` in a
        terminal), and what the run must tell the user (ignored settings, no sandbox)."""
        self.apply_settings(self.settings.refresh_trust())
        return self.engine.notices()

    def apply_settings(self, update: SettingsUpdate) -> None:
        """A new config is in force: logging and the index follow it; errors are shown."""
        if update.error:
            where = f" of {self.root}" if len(self._ls.folders) > 1 else ""
            self._ls.show_error(
                f"agentls: invalid configuration{where}, using the last valid one:\n{update.error}"
            )
            return
        if update.changed:
            if self is self._ls.folders.default:
                from agentls.logging_setup import configure_logging

                cfg = self.config.logging
                configure_logging(cfg.level, file=cfg.file, verbose=cfg.verbose)
            self.index_service.start(self.config)

    # -- who knows the problems and the meaning of the code ----------------------------
    def problem_source(self, config: AppConfig) -> ProblemSource | None:
        """Who tells a run the problems of its files: the editor when it answers
        ``agent/diagnostics``, else the language servers this folder starts (kept until
        ``shutdown``, or until the config or the folder's trust changes)."""
        if not config.diagnostics.enabled:
            return None
        from agentls.server.problems import EditorProblems, client_answers_diagnostics

        if client_answers_diagnostics(self._ls.client_capabilities):
            key: Any = (config.workspace.root, config.diagnostics.servers)
            if self._editor_problems is None or self._editor_problems[0] != key:
                self._editor_problems = (key, EditorProblems.for_config(self._ls, config))
            return self._editor_problems[1]
        return self.engine.language_servers(config)

    def navigator(self, config: AppConfig) -> CodeNavigator | None:
        """Who answers a run's questions about the code by meaning: the editor's providers
        when it answers ``agent/navigate``, handing on to the language servers this folder
        starts (the engine's, as for the problems) a file it has no provider for."""
        servers = self.engine.navigator(config)
        from agentls.server.navigation import (
            EditorNavigator,
            NavigatorChain,
            client_answers_navigation,
        )

        if not client_answers_navigation(self._ls.client_capabilities):
            return servers
        key: Any = (config.workspace.root, config.diagnostics.servers)
        if self._editor_navigator is None or self._editor_navigator[0] != key:
            self._editor_navigator = (key, EditorNavigator.for_config(self._ls, config))
        editor = self._editor_navigator[1]
        return NavigatorChain([editor] if servers is None else [editor, servers])

    # -- the end -------------------------------------------------------------------------
    async def aclose(self) -> None:
        """End what the folder started: its index, language servers, MCP connections."""
        self.index_service.stop()
        if self._engine is not None:
            await self._engine.aclose()


class Folders:
    """The server's workspace folders, in the order the editor gave them; the first is
    the default of every request that names none."""

    def __init__(self) -> None:
        self._by_uri: dict[str, ServerFolder] = {}
        #: How many folders were ever added: each index gets its own progress token.
        self._added = 0

    def __len__(self) -> int:
        return len(self._by_uri)

    def __iter__(self) -> Iterator[ServerFolder]:
        return iter(list(self._by_uri.values()))

    @property
    def default(self) -> ServerFolder:
        """The first folder (a server with none yet has none: ``initialize`` adds them)."""
        for folder in self._by_uri.values():
            return folder
        raise LookupError("no workspace folder yet (before initialize)")

    @property
    def first(self) -> ServerFolder | None:
        return next(iter(self._by_uri.values()), None)

    def add(
        self, ls: AgentLanguageServer, uri: str, root: Path, *, implicit: bool = False
    ) -> ServerFolder:
        """The folder at ``uri`` (made when new). ``implicit``: the stand-in a server has
        before ``initialize`` names its folders (``drop_implicit`` takes it out)."""
        found = self.find(uri)
        if found is not None:
            found.implicit = found.implicit and implicit
            return found
        token = PROGRESS_TOKEN if self._added == 0 else f"{PROGRESS_TOKEN}/{self._added}"
        self._added += 1
        folder = self._by_uri[uri] = ServerFolder(ls, uri, root, index=token)
        folder.implicit = implicit
        return folder

    def drop_implicit(self) -> None:
        """Forget the stand-in folder (nothing of it was loaded before ``initialize``)."""
        for folder in list(self._by_uri.values()):
            if folder.implicit:
                del self._by_uri[folder.uri]
        if not self._by_uri:
            self._added = 0

    def remove(self, uri: str) -> ServerFolder | None:
        """Take the folder out (marked removed); None when it is not one of them."""
        found = self.find(uri)
        if found is None:
            return None
        del self._by_uri[found.uri]
        found.removed = True
        return found

    def find(self, uri: str) -> ServerFolder | None:
        """The folder named by ``uri``: as the client sent it, or a URI of the same path
        (clients differ in how they escape one)."""
        found = self._by_uri.get(uri)
        if found is not None:
            return found
        path = folder_path(uri)
        if path is None:
            return None
        return next((f for f in self._by_uri.values() if _same(f.root, path)), None)

    def named(self, uri: str | None) -> ServerFolder:
        """The folder a request names (None: the default); InvalidParams naming the URI
        and the open folders when it is not one of them."""
        if uri is None:
            return self.default
        found = self.find(uri)
        if found is None:
            raise JsonRpcInvalidParams(removed_message(uri, self))
        return found

    def holding(self, path: str | Path) -> ServerFolder | None:
        """The folder that holds the absolute ``path`` (the innermost, when folders nest)."""
        real = os.path.realpath(path)
        best: ServerFolder | None = None
        for folder in self._by_uri.values():
            root = os.path.realpath(folder.root)
            inside = real == root or real.startswith(root.rstrip(os.sep) + os.sep)
            if inside and (best is None or len(str(folder.root)) > len(str(best.root))):
                best = folder
        return best

    def with_run(self, run_id: str) -> ServerFolder | None:
        """The folder whose run ``run_id`` is in flight."""
        return next((f for f in self._by_uri.values() if f.has_run(run_id)), None)


def removed_message(uri: str, folders: Folders) -> str:
    """Why a request naming ``uri`` is refused: it is none of the folders (any more)."""
    open_ = ", ".join(f.uri for f in folders) or "none"
    return (
        f"{uri} is not a workspace folder of this window (unknown, or removed); "
        f"the folders are: {open_}"
    )


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
