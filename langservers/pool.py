"""``LanguageServers``: the ``ProblemSource`` of language servers agentls starts itself.

Used where no editor tells the problems (the CLI, ACP, an editor that does not answer
``agent/diagnostics``). For each file extension, the first of ``diagnostics.servers`` that
lists it and whose program is on PATH serves it: one process per server, started the first
time a run reads or edits such a file, ended by ``aclose`` (the owner: the CLI run, the ACP
connection, the language server at shutdown). The documents are sent the text the run sees
(its FileAccess: the disk, or an ACP editor's buffers), never read from disk here.

Only in a trusted folder: a language server may run the project's code (a virtualenv's
interpreter for pyright, the project's TypeScript for typescript-language-server, build
scripts and proc macros for rust-analyzer).

Everything that goes wrong (no server on PATH, one that does not start, crashes or does
not answer in time) is said once to the user through ``take_notices`` and otherwise
costs the edit nothing more than ``diagnostics.wait_ms``: the run goes on unchecked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from agentls.agent.config.models import DiagnosticsConfig, LanguageServerConfig
from agentls.agent.navigation import Action, Answer, CodeNavigator, FileEdits, Place
from agentls.agent.problems import FileProblems, Problem, Problems, Severity

if TYPE_CHECKING:
    # The LSP client (lsprotocol's types: ~0.4 s) is imported when a server starts: a run
    # whose files no server checks, or with none installed, never pays for it.
    from lsprotocol import types as lsp

    from agentls.langservers.client import Connection

log = logging.getLogger(__name__)

#: Allowed for a server to start and answer ``initialize``.
START_SECONDS = 30.0
_SEVERITY: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}

Which = Callable[[str], str | None]


class LanguageServers:
    """The language servers of one workspace ``root`` (see the module's doc).

    ``trusted``: the folder is trusted (else nothing starts, and the user is told how to
    trust it: ``how_to_trust``). ``which`` finds a program on PATH.
    """

    def __init__(
        self,
        settings: DiagnosticsConfig,
        root: Path,
        *,
        trusted: bool,
        how_to_trust: str = "run `agentls trust` in it",
        which: Which = shutil.which,
    ) -> None:
        self.settings = settings
        self.root = Path(os.path.realpath(root))
        self.trusted = trusted
        self.how_to_trust = how_to_trust
        self._which = which
        self._found: dict[str, str | None] = {}
        self._connections: dict[str, Connection] = {}
        self._starting: dict[str, asyncio.Task[Connection | None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._notices: list[str] = []
        self._said: set[str] = set()
        self._closed = False
        self._navigator: CodeNavigator | None = None

    async def __aenter__(self) -> LanguageServers:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- which server serves a file ------------------------------------------------------
    def _program(self, entry: LanguageServerConfig) -> str | None:
        if entry.name not in self._found:
            self._found[entry.name] = self._which(entry.command[0])
        return self._found[entry.name]

    def _entry(self, path: str) -> LanguageServerConfig | None:
        """The server for ``path``: the first that lists its extension and is on PATH."""
        ext = os.path.splitext(path)[1].lower()
        listing = [entry for entry in self.settings.servers if ext in entry.files]
        if not listing or self._closed:
            return None
        found = next((entry for entry in listing if self._program(entry) is not None), None)
        if found is None:
            names = ", ".join(entry.command[0] for entry in listing)
            self._say(
                f"missing:{names}",
                f"no language server for {ext} files is on PATH (looked for {names}): edits "
                "of them are not checked for problems (diagnostics.servers lists the servers)",
            )
            return None
        if not self.trusted:
            self._say(
                "untrusted",
                "agentls does not start language servers in a folder you have not trusted "
                "(they may run the project's code), so edits are not checked for problems; "
                f"to trust it, {self.how_to_trust}",
            )
            return None
        connection = self._connections.get(found.name)
        if connection is not None and connection.failure is not None:
            return None
        return found

    def covers(self, path: str) -> bool:
        return self._entry(path) is not None

    @property
    def navigator(self) -> CodeNavigator:
        """The same servers answering questions about the code (definitions, references,
        renames): ``langservers/navigation.py``, loaded at the first question."""
        if self._navigator is None:
            self._navigator = _DeferredNavigator(self)
        return self._navigator

    def _say(self, key: str, message: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self._notices.append(message)

    def take_notices(self) -> list[str]:
        notices, self._notices = self._notices, []
        return notices

    # -- servers -------------------------------------------------------------------------
    async def _connection(self, entry: LanguageServerConfig) -> Connection | None:
        """The server of ``entry``, started on first need; None when it cannot be used."""
        connection = self._connections.get(entry.name)
        if connection is not None and connection.ready:
            return connection
        task = self._starting.get(entry.name)
        if task is None:
            task = asyncio.create_task(self._start(entry), name=f"lsp-start-{entry.name}")
            self._starting[entry.name] = task
        return await asyncio.shield(task)

    async def _start(self, entry: LanguageServerConfig) -> Connection | None:
        from agentls.langservers.client import Connection, LanguageServerFailed

        program = self._program(entry)
        assert program is not None
        connection = Connection(entry, program, self.root)
        self._connections[entry.name] = connection
        try:
            await connection.start(START_SECONDS)
        except LanguageServerFailed as exc:
            self._say(f"failed:{entry.name}", f"language server {entry.name}: {exc}; {_GOES_ON}")
            await connection.close()
            return None
        log.info("language server %s started (%s)", entry.name, program)
        return connection

    def _usable(self, entry: LanguageServerConfig) -> Connection | None:
        connection = self._connections.get(entry.name)
        if connection is None or not connection.ready:
            if connection is not None and connection.failure is not None:
                self._crashed(connection)
            return None
        return connection

    def _failed(self, entry: LanguageServerConfig) -> bool:
        """``entry``'s server was started and cannot be used (it failed or crashed)."""
        connection = self._connections.get(entry.name)
        return connection is not None and connection.failure is not None

    def _crashed(self, connection: Connection) -> None:
        self._say(f"failed:{connection.name}", f"language server {connection.failure}; {_GOES_ON}")

    def _absolute(self, path: str) -> str:
        return str(self.root / path)

    def _relative(self, key: str) -> str | None:
        from agentls.langservers.client import path_key  # keys come from a running server

        try:
            rel = Path(key).relative_to(path_key(self.root))
        except ValueError:
            return None
        return rel.as_posix()

    def _problems(
        self, entry: LanguageServerConfig, key: str, found: list[lsp.Diagnostic]
    ) -> list[Problem]:
        rel = self._relative(key)
        if rel is None:
            return []
        return [to_problem(rel, diagnostic, entry.name) for diagnostic in found]

    async def start_for(self, path: str) -> bool:
        """Start the server of ``path``'s language now rather than at first use; whether
        it is up."""
        entry = self._entry(path)
        return entry is not None and await self._connection(entry) is not None

    # -- ProblemSource -------------------------------------------------------------------
    def saw(self, path: str, text: str) -> None:
        entry = self._entry(path)
        if entry is None:
            return
        task = asyncio.create_task(self._open(entry, path, text), name=f"lsp-open-{path}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _open(self, entry: LanguageServerConfig, path: str, text: str) -> None:
        connection = await self._connection(entry)
        if connection is not None and connection.failure is None:
            connection.sync(self._absolute(path), text)

    async def begin_edit(self, texts: Mapping[str, str | None]) -> _Watch:
        watch = _Watch(self)
        for path, text in texts.items():
            entry = self._entry(path)
            if entry is not None:
                watch.follow(entry, path, text)
        return watch

    async def problems(self, texts: Mapping[str, str] | None, wait: float) -> Problems:
        found = Problems()
        if texts is None:
            for connection in list(self._connections.values()):
                if connection.failure is not None:
                    self._crashed(connection)
                    continue
                for key, published in connection.published.items():
                    found.problems += self._problems(connection.entry, key, published.diagnostics)
            return found
        waits = []
        for path, text in texts.items():
            entry = self._entry(path)
            if entry is None:
                found.unchecked.append(path)
                continue
            waits.append(self._current(entry, path, text, wait))
        for path, problems in await asyncio.gather(*waits):
            if problems is None:
                found.late.append(path)
            else:
                found.problems += problems
        return found

    async def _current(
        self, entry: LanguageServerConfig, path: str, text: str, wait: float
    ) -> tuple[str, list[Problem] | None]:
        """``path``'s problems now, or None when they did not arrive within ``wait``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        try:
            connection = await asyncio.wait_for(self._connection(entry), wait)
        except TimeoutError:
            connection = None
        if connection is None:
            self._timed_out(entry, path, wait, started=False)
            return path, None
        sent = connection.sync(self._absolute(path), text)
        got = await connection.settled(sent, max(deadline - loop.time(), 0.0))
        if got is None:
            self._late(connection, path, wait)
            return path, None
        return path, self._problems(entry, sent.path, got)

    def _late(self, connection: Connection, path: str, timeout: float) -> None:
        if connection.failure is not None:
            self._crashed(connection)
        else:
            self._timed_out(connection.entry, path, timeout, started=True)

    def _timed_out(
        self, entry: LanguageServerConfig, path: str, timeout: float, *, started: bool
    ) -> None:
        what = "report the problems of" if started else "start and report the problems of"
        self._say(
            f"late:{entry.name}",
            f"language server {entry.name} did not {what} {path} within {timeout:g} s "
            "(diagnostics.wait_ms): an edit's result lists only the problems that arrive "
            "in time",
        )

    async def aclose(self) -> None:
        """Stop every server (``shutdown``, ``exit``, then its process group)."""
        self._closed = True
        waiting: list[asyncio.Task[Any]] = [*self._tasks, *self._starting.values()]
        for task in waiting:
            task.cancel()
        if waiting:
            await asyncio.gather(*waiting, return_exceptions=True)
        await asyncio.gather(
            *(c.close() for c in self._connections.values()), return_exceptions=True
        )
        self._connections.clear()


_GOES_ON = "edits of its files are not checked for problems in the rest of this session"


class ServerCoverage:
    """Which files the pool's servers answer for, and why not: what a run asks before
    any question (the prompt names the languages), without the LSP client's types."""

    textual = False

    def __init__(self, pool: LanguageServers) -> None:
        self.pool = pool

    def covers(self, path: str) -> bool:
        entry = self.pool._entry(path)
        return entry is not None and not self.pool._failed(entry)

    def why_not(self, path: str) -> str:
        pool = self.pool
        ext = os.path.splitext(path)[1].lower() or path
        listing = [entry for entry in pool.settings.servers if ext in entry.files]
        for entry in listing:
            connection = pool._connections.get(entry.name)
            if connection is not None and connection.failure is not None:
                return f"language server {connection.failure}"
        if pool._entry(path) is not None:
            return ""
        if not listing:
            return f"no language server is configured for {ext} files"
        if not pool.trusted:
            return "language servers do not start in a folder you have not trusted"
        return f"no language server for {ext} files is on PATH"

    def languages(self) -> list[str]:
        pool = self.pool
        if not pool.trusted or pool._closed:
            return []
        found: list[str] = []
        for entry in pool.settings.servers:
            if pool._program(entry) is None or pool._failed(entry):
                continue
            found += [ext for ext in entry.files if ext not in found]
        return found


class _DeferredNavigator(ServerCoverage):
    """``ServerNavigator`` imported at the first question: its LSP types (lsprotocol,
    ~0.4-0.8 s to import) would otherwise delay every run's first model call."""

    def __init__(self, pool: LanguageServers) -> None:
        super().__init__(pool)
        self._asking: CodeNavigator | None = None

    def _navigator(self) -> CodeNavigator:
        if self._asking is None:
            from agentls.langservers.navigation import ServerNavigator

            self._asking = ServerNavigator(self.pool)
        return self._asking

    async def ask(self, action: Action, place: Place) -> Answer:
        return await self._navigator().ask(action, place)

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        return await self._navigator().workspace_symbols(query, near)

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        return await self._navigator().rename(place, new_name)


class _Watch:
    """One edit, followed: each file's baseline is learnt while the edit is applied."""

    def __init__(self, pool: LanguageServers) -> None:
        self.pool = pool
        self._files: dict[str, tuple[LanguageServerConfig, asyncio.Task[list[Problem] | None]]] = {}
        self._pins = contextlib.ExitStack()

    def follow(self, entry: LanguageServerConfig, path: str, text: str | None) -> None:
        task = asyncio.create_task(self._before(entry, path, text), name=f"lsp-before-{path}")
        self._files[path] = (entry, task)

    async def _before(
        self, entry: LanguageServerConfig, path: str, text: str | None
    ) -> list[Problem] | None:
        if text is None:
            return []  # the edit creates the file: it had no problems
        connection = await self.pool._connection(entry)
        if connection is None or connection.failure is not None:
            return None
        absolute = self.pool._absolute(path)
        self._pins.enter_context(connection.pinned(absolute))
        sent = connection.sync(absolute, text)
        got = await connection.settled(sent, None)
        return None if got is None else self.pool._problems(entry, sent.path, got)

    async def after_edit(self, texts: Mapping[str, str], wait: float) -> dict[str, FileProblems]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        results = await asyncio.gather(
            *(
                self._after(path, text, deadline)
                for path, text in texts.items()
                if path in self._files
            )
        )
        return dict(results)

    async def _after(self, path: str, text: str, deadline: float) -> tuple[str, FileProblems]:
        entry, task = self._files[path]
        pool = self.pool
        wait = pool.settings.wait_ms / 1000
        loop = asyncio.get_running_loop()
        try:
            before = await asyncio.wait_for(asyncio.shield(task), max(deadline - loop.time(), 0))
        except TimeoutError:
            before = None
        connection = pool._usable(entry)
        if connection is None:
            if not pool._failed(entry):
                # Still starting: it gets the new text once it is up.
                pool.saw(path, text)
                pool._timed_out(entry, path, wait, started=False)
            return path, FileProblems(before, None)
        absolute = pool._absolute(path)
        self._pins.enter_context(connection.pinned(absolute))
        sent = connection.sync(absolute, text)
        got = None
        if before is not None:
            got = await connection.settled(sent, max(deadline - loop.time(), 0.0))
        if got is None:
            pool._late(connection, path, wait)
            return path, FileProblems(before, None)
        return path, FileProblems(before, pool._problems(entry, sent.path, got))

    async def close(self) -> None:
        tasks = [task for _, task in self._files.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._pins.close()


def to_problem(path: str, diagnostic: lsp.Diagnostic, server: str) -> Problem:
    """An LSP diagnostic as the engine's ``Problem`` (1-based line and column; a missing
    severity is an error, as editors show it)."""
    start = diagnostic.range.start
    severity = _SEVERITY.get(int(diagnostic.severity or 1), "error")
    return Problem(
        path=path,
        line=start.line + 1,
        col=start.character + 1,
        severity=severity,
        message=diagnostic.message,
        source=diagnostic.source or server,
    )
