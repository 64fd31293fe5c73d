"""The editor's own providers as a run's ``CodeNavigator``: ``agent/navigate`` to the client.

A client that declares ``experimental.agentls.navigation: true`` answers ``agent/navigate
{action, uri, position | query, newName}`` from its providers (VS Code's
``vscode.execute*Provider`` commands, Neovim's attached servers): locations, hover text,
symbols, call items, or a rename's ``WorkspaceEdit`` that the server applies itself, as one
reviewed change. ``EditorNavigator`` turns those into the engine's types (UTF-16 positions,
0-based, into 1-based characters; URIs into workspace paths, absolute outside it).

``NavigatorChain`` asks the editor first and the language servers agentls starts after it:
an editor without a provider for the document (``answered: false``) or that fails or does
not answer in time hands the question on, and the answer says so ("basedpyright; the
editor did not answer: ..."), so the model knows who it is reading.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from agentls.agent.config.models import AppConfig
from agentls.agent.navigation import (
    Action,
    Answer,
    Call,
    CodeNavigator,
    FileEdits,
    Location,
    NavigationError,
    NoAnswer,
    Place,
    Symbol,
    TextEdit,
    from_utf16,
    utf16_units,
)
from agentls.regular_files import read_regular
from agentls.server.protocol import (
    DiagnosticPosition,
    NavigateAction,
    NavigateParams,
    NavigateResult,
    NavLocation,
    NavSymbol,
)
from agentls.server.settings import agentls_capability

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Allowed for the editor's answer: its language server may still be starting (VS Code's
#: TypeScript server takes seconds on a first question), and a references search is slow.
EDITOR_SECONDS = 30.0

_ACTIONS: dict[str, NavigateAction] = {
    "definition": "definition",
    "references": "references",
    "hover": "hover",
    "document_symbols": "documentSymbols",
    "workspace_symbols": "workspaceSymbols",
    "implementations": "implementations",
    "incoming_calls": "incomingCalls",
    "outgoing_calls": "outgoingCalls",
}
_KINDS = {kind.value: kind.name.lower() for kind in lsp.SymbolKind}


def client_answers_navigation(caps: lsp.ClientCapabilities | None) -> bool:
    """Whether the client declared ``experimental.agentls.navigation: true``."""
    return bool(agentls_capability(caps, "navigation"))


class EditorNavigator:
    """Questions about the code, answered by the editor's providers. ``extensions``: the
    languages the system prompt names (those of ``diagnostics.servers``; the editor does
    not say which it understands, and its ``answered: false`` hands a file on)."""

    textual = False

    def __init__(self, ls: LanguageServer, root: Path, extensions: Sequence[str]) -> None:
        self._ls = ls
        self.root = Path(os.path.realpath(root))
        self.extensions = list(extensions)
        #: Why the editor is not asked any more (it let a question time out), or "".
        self.failure = ""
        self.seconds = EDITOR_SECONDS

    @classmethod
    def for_config(cls, ls: LanguageServer, config: AppConfig) -> EditorNavigator:
        extensions: list[str] = []
        for server in config.diagnostics.servers:
            extensions += [ext for ext in server.files if ext not in extensions]
        return cls(ls, config.workspace.root, extensions)

    def covers(self, path: str) -> bool:
        return not self.failure

    def why_not(self, path: str) -> str:
        return self.failure

    def languages(self) -> list[str]:
        return [] if self.failure else list(self.extensions)

    # -- asking ------------------------------------------------------------------------
    async def _request(self, params: NavigateParams, path: str) -> NavigateResult:
        if self.failure:
            raise NoAnswer(self.failure)
        try:
            result = await asyncio.wait_for(
                self._ls.protocol.send_request_async("agent/navigate", params.to_wire()),
                self.seconds,
            )
        except TimeoutError:
            # A question that waits this long would cost every later one as much.
            self.failure = (
                f"the editor did not answer agent/navigate within {self.seconds:g} s, "
                "so it is not asked again while this server runs"
            )
            log.warning("agent/navigate: %s", self.failure)
            raise NavigationError(self.failure) from None
        except Exception as exc:  # an error answer: this question only
            log.warning("agent/navigate failed: %s", exc)
            raise NavigationError(f"the editor failed to answer: {exc}") from None
        if not isinstance(result, NavigateResult):
            raise NavigationError("the editor's answer to agent/navigate is not one")
        if not result.answered:
            raise NoAnswer(f"the editor has no {params.action} answer for {path}")
        return result

    async def ask(self, action: Action, place: Place) -> Answer:
        params = NavigateParams(
            action=_ACTIONS[action],
            uri=self._uri(place.path),
            position=_position(place.text, place.line, place.col),
        )
        result = await self._request(params, place.path)
        by = result.by or "the editor"
        texts = _Texts(self, place)
        if action == "hover":
            return Answer(by, hover=result.hover or "")
        if action == "document_symbols":
            return Answer(by, symbols=[self._symbol(s, texts) for s in result.symbols])
        if action in ("incoming_calls", "outgoing_calls"):
            calls = [
                Call(
                    self._symbol(c.symbol, texts), tuple(self._location(s, texts) for s in c.sites)
                )
                for c in result.calls
            ]
            return Answer(by, calls=calls)
        return Answer(by, locations=[self._location(loc, texts) for loc in result.locations])

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        uri = self._uri(near) if near else from_fs_path(str(self.root)) or self.root.as_uri()
        result = await self._request(
            NavigateParams(action="workspaceSymbols", uri=uri, query=query), near or "the workspace"
        )
        texts = _Texts(self, None)
        return Answer(
            result.by or "the editor", symbols=[self._symbol(s, texts) for s in result.symbols]
        )

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        params = NavigateParams(
            action="rename",
            uri=self._uri(place.path),
            position=_position(place.text, place.line, place.col),
            new_name=new_name,
        )
        result = await self._request(params, place.path)
        by = result.by or "the editor"
        if result.edit is None:
            raise NavigationError(f"{by} found nothing to rename there")
        texts = _Texts(self, place)
        out: list[FileEdits] = []
        for uri, edits in result.edit.changes.items():
            path = self._path(uri)
            text = texts.get(uri)
            converted = []
            for edit in edits:
                line, col = _from_position(text, edit.range.start)
                end_line, end_col = _from_position(text, edit.range.end)
                converted.append(TextEdit(line, col, end_line, end_col, edit.new_text))
            # The asked file's edits were computed on the text the run read (the editor's
            # buffer): a change since is refused. Others are checked by their old name.
            base = place.text if path == place.path else None
            out.append(FileEdits(path, tuple(converted), base))
        return by, out

    # -- the answers as the engine's types ---------------------------------------------
    def _uri(self, path: str) -> str:
        absolute = path if os.path.isabs(path) else str(self.root / path)
        return from_fs_path(absolute) or Path(absolute).as_uri()

    def _path(self, uri: str) -> str:
        path = to_fs_path(uri) or uri
        real = os.path.realpath(path)
        try:
            return Path(real).relative_to(self.root).as_posix()
        except ValueError:
            return real

    def _location(self, found: NavLocation, texts: _Texts) -> Location:
        text = texts.get(found.uri)
        line, col = _from_position(text, found.range.start)
        end_line, end_col = _from_position(text, found.range.end)
        return Location(self._path(found.uri), line, col, end_line, end_col)

    def _symbol(self, found: NavSymbol, texts: _Texts) -> Symbol:
        location = self._location(NavLocation(uri=found.uri, range=found.range), texts)
        kind = _KINDS.get(found.kind, "symbol")
        return Symbol(found.name, kind, location, tuple(found.container), found.detail or "")


class _Texts:
    """Each answered document's text (to turn UTF-16 columns into characters): the asked
    place's, the editor's open buffer, else the disk; read once."""

    def __init__(self, navigator: EditorNavigator, place: Place | None) -> None:
        self._navigator = navigator
        self._known: dict[str, str | None] = {}
        if place is not None:
            self._known[navigator._path(navigator._uri(place.path))] = place.text

    def get(self, uri: str) -> str | None:
        path = self._navigator._path(uri)
        if path in self._known:
            return self._known[path]
        text: str | None = None
        workspace = self._navigator._ls.workspace
        if uri in workspace.text_documents:
            text = workspace.get_text_document(uri).source
        else:
            absolute = path if os.path.isabs(path) else str(self._navigator.root / path)
            try:
                text = read_regular(Path(absolute)).decode("utf-8", "replace")
            except (OSError, ValueError):
                text = None
        self._known[path] = text
        return text


class NavigatorChain:
    """Navigators asked in order (the editor, then the language servers agentls starts):
    the first that covers a file and answers gives the answer; one with no answer for it
    (``NoAnswer``) or that fails hands the question on, and the answer says why."""

    textual = False

    def __init__(self, navigators: Sequence[CodeNavigator]) -> None:
        self.navigators = list(navigators)

    def _for(self, path: str) -> list[CodeNavigator]:
        return [n for n in self.navigators if n.covers(path)]

    def covers(self, path: str) -> bool:
        return bool(self._for(path))

    def why_not(self, path: str) -> str:
        if self.covers(path):
            return ""
        return "; ".join(why for n in self.navigators if (why := n.why_not(path)))

    def languages(self) -> list[str]:
        found: list[str] = []
        for navigator in self.navigators:
            found += [ext for ext in navigator.languages() if ext not in found]
        return found

    async def ask(self, action: Action, place: Place) -> Answer:
        async def one(navigator: CodeNavigator) -> Answer:
            return await navigator.ask(action, place)

        answer, notes = await self._first(self._for(place.path), one)
        return dataclasses.replace(answer, by=_by(answer.by, notes))

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        navigators = self._for(near) if near else [n for n in self.navigators if n.languages()]

        async def one(navigator: CodeNavigator) -> Answer:
            return await navigator.workspace_symbols(query, near)

        answer, notes = await self._first(navigators, one)
        return dataclasses.replace(answer, by=_by(answer.by, notes))

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        async def one(navigator: CodeNavigator) -> tuple[str, list[FileEdits]]:
            return await navigator.rename(place, new_name)

        (by, edits), notes = await self._first(self._for(place.path), one)
        return _by(by, notes), edits

    async def _first(
        self, navigators: list[CodeNavigator], one: Callable[[CodeNavigator], Awaitable[T]]
    ) -> tuple[T, list[str]]:
        notes: list[str] = []
        for index, navigator in enumerate(navigators):
            last = index == len(navigators) - 1
            try:
                return await one(navigator), notes
            except NoAnswer as exc:
                notes.append(str(exc))
            except NavigationError as exc:
                if last:
                    raise NavigationError("; ".join([*notes, str(exc)])) from None
                notes.append(str(exc))
        raise NoAnswer("; ".join(notes) or "no navigator answers for that file")


def _by(by: str, notes: list[str]) -> str:
    return "; ".join([by, *notes])


def _position(text: str, line: int, col: int) -> DiagnosticPosition:
    """The engine's 1-based line and character column as an LSP position (UTF-16)."""
    return DiagnosticPosition(line=line - 1, character=utf16_units(text, line, col))


def _from_position(text: str | None, position: DiagnosticPosition) -> tuple[int, int]:
    return from_utf16(text, position.line, position.character)
