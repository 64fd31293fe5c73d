"""The editor's problems as a run's ``ProblemSource``: ``agent/diagnostics`` to the client.

A client that declares ``experimental.agentls.diagnostics: true`` answers
``agent/diagnostics {uris}`` with the diagnostics it shows for each document now: every
extension's in VS Code (``vscode.languages.getDiagnostics``), every attached server's in
Neovim (``vim.diagnostic.get``). Other clients get the language servers agentls starts
itself (``agentls.langservers``), one pool per server process, ended at ``shutdown``.

An editor's diagnostics carry no document version, so "settled for the new text" is
judged from what the answers show: after the edit the server asks again every
``POLL_SECONDS``, and a document is settled once its problems (or its ``updates`` count,
when the client sends one) changed since before the edit and then stayed the same for
``QUIET_SECONDS``. A document whose problems never change (a clean edit of a clean file:
language servers then publish nothing new) costs the whole wait, ``diagnostics.wait_ms``.

Nor does an editor say which languages it checks at all (VS Code without a Python
extension shows no problem for any ``.py`` file): until some document of a file extension
has had problems (or an ``updates`` count above 0) in one of its answers, an edit of such a
file waits at most ``PROBE_SECONDS``, then the whole wait once problems appear.

A document the editor did not have open before the edit had no problems it could show:
its problems after the edit are reported as such (they may be older than the edit).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from agentls.agent.config.models import AppConfig
from agentls.agent.problems import FileProblems, Problem, Problems, Severity
from agentls.server.protocol import DiagnosticsParams, DiagnosticsResult, EditorDiagnostic
from agentls.server.settings import agentls_capability

log = logging.getLogger(__name__)

POLL_SECONDS = 0.1
QUIET_SECONDS = 0.25
PROBE_SECONDS = 1.0
_SEVERITY: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def client_answers_diagnostics(caps: lsp.ClientCapabilities | None) -> bool:
    """Whether the client declared ``experimental.agentls.diagnostics: true``."""
    return bool(agentls_capability(caps, "diagnostics"))


class _Seen:
    """A document's problems in one answer, and its ``updates`` count."""

    def __init__(self, problems: list[Problem], updates: int | None) -> None:
        self.problems = problems
        self.updates = updates

    def same(self, other: _Seen | None) -> bool:
        if other is None:
            return False
        return other.problems == self.problems and other.updates == self.updates


class EditorProblems:
    """The ProblemSource of an editor that answers ``agent/diagnostics``. ``extensions``:
    the files whose problems are waited for (those of ``diagnostics.servers``' languages;
    others, a README, are never checked by a language server and would cost the whole
    wait)."""

    def __init__(self, ls: LanguageServer, root: Path, extensions: frozenset[str]) -> None:
        self._ls = ls
        self.root = Path(os.path.realpath(root))
        self.extensions = extensions
        self._notices: list[str] = []
        self._failed = False
        #: Extensions of the documents the editor has shown problems for: it checks them.
        self.checked: set[str] = set()
        self._surveyed = False

    @classmethod
    def for_config(cls, ls: LanguageServer, config: AppConfig) -> EditorProblems:
        extensions = frozenset(ext for s in config.diagnostics.servers for ext in s.files)
        return cls(ls, config.workspace.root, extensions)

    def covers(self, path: str) -> bool:
        return not self._failed and _extension(path) in self.extensions

    def saw(self, path: str, text: str) -> None:
        """The editor analyses what it has open by itself."""

    def take_notices(self) -> list[str]:
        notices, self._notices = self._notices, []
        return notices

    def _uri(self, path: str) -> str:
        absolute = str(self.root / path)
        return from_fs_path(absolute) or Path(absolute).as_uri()

    def _path(self, uri: str) -> str | None:
        path = to_fs_path(uri)
        if not path:
            return None
        try:
            return Path(os.path.realpath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def is_open(self, path: str) -> bool:
        wanted = os.path.realpath(self.root / path)
        for uri in list(self._ls.workspace.text_documents):
            fs_path = to_fs_path(uri)
            if fs_path and os.path.realpath(fs_path) == wanted:
                return True
        return False

    async def ask(self, paths: list[str]) -> dict[str, _Seen] | None:
        """The editor's problems of ``paths`` now (every document's when empty); None when
        it did not answer."""
        params = DiagnosticsParams(uris=[self._uri(p) for p in paths])
        try:
            result = await self._ls.protocol.send_request_async(
                "agent/diagnostics", params.to_wire()
            )
        except Exception as exc:
            if not self._failed:
                self._failed = True
                self._notices.append(
                    f"the editor did not answer agent/diagnostics ({exc}): edits are not "
                    "checked for problems while this server runs"
                )
            log.warning("agent/diagnostics failed: %s", exc)
            return None
        if not isinstance(result, DiagnosticsResult):
            return None
        seen: dict[str, _Seen] = {}
        for item in result.items:
            path = self._path(item.uri)
            if path is None:
                continue
            problems = [_problem(path, d) for d in item.diagnostics]
            seen[path] = _Seen(problems, item.updates)
            if problems or item.updates:
                self.checked.add(_extension(path))
        return seen

    def is_checked(self, path: str) -> bool:
        return _extension(path) in self.checked

    async def begin_edit(self, texts: Mapping[str, str | None]) -> _EditorWatch:
        if not self._surveyed:
            # Once: which kinds of files does the editor check at all?
            self._surveyed = True
            await self.ask([])
        paths = list(texts)
        seen = await self.ask(paths)
        before: dict[str, _Seen | None] = {}
        for path in paths:
            if texts[path] is None:
                before[path] = _Seen([], None)  # created by the edit: no problems before
            elif seen is None or not self.is_open(path):
                before[path] = None
            else:
                before[path] = seen.get(path, _Seen([], None))
        return _EditorWatch(self, before)

    async def problems(self, texts: Mapping[str, str] | None, wait: float) -> Problems:
        seen = await self.ask(list(texts or ()))
        found = Problems()
        for path, problems in (seen or {}).items():
            if texts is None or path in texts:
                found.problems += problems.problems
        return found


class _EditorWatch:
    def __init__(self, source: EditorProblems, before: dict[str, _Seen | None]) -> None:
        self.source = source
        self.before = before

    async def after_edit(self, texts: Mapping[str, str], wait: float) -> dict[str, FileProblems]:
        paths = [path for path in texts if path in self.before]
        loop = asyncio.get_running_loop()
        started = loop.time()
        checked = any(self.source.is_checked(path) for path in paths)
        deadline = started + (wait if checked else min(wait, PROBE_SECONDS))
        last: dict[str, _Seen | None] = dict(self.before)
        changed_at: dict[str, float] = {}
        while paths:
            if not checked and any(self.source.is_checked(path) for path in paths):
                checked, deadline = True, started + wait
            pause = min(POLL_SECONDS, deadline - loop.time())
            if pause <= 0:
                break
            await asyncio.sleep(pause)
            seen = await self.source.ask(paths)
            if seen is None:
                break
            now = loop.time()
            for path in paths:
                current = seen.get(path, _Seen([], None))
                if not current.same(last[path]):
                    last[path] = current
                    changed_at[path] = now
            if all(now - changed_at.get(path, now) >= QUIET_SECONDS for path in paths):
                break
        found = {}
        for path in paths:
            before, after = self.before[path], last[path]
            found[path] = FileProblems(
                before.problems if before is not None else None,
                after.problems if after is not None else [],
            )
        return found

    async def close(self) -> None:
        """Nothing is held: each answer was asked for."""


def _extension(path: str) -> str:
    return os.path.splitext(path)[1].lower()


def _problem(path: str, diagnostic: EditorDiagnostic) -> Problem:
    start = diagnostic.range.start
    return Problem(
        path=path,
        line=start.line + 1,
        col=start.character + 1,
        severity=_SEVERITY.get(diagnostic.severity or 1, "error"),
        message=diagnostic.message,
        source=diagnostic.source or "",
    )
