"""``ServerNavigator``: the ``CodeNavigator`` of the language servers agentls starts itself.

The same pool as the problems after edits (``LanguageServers``): the same servers, the
same trust rule, the same ``diagnostics.servers`` configuration, one process per server.
A question is asked after the asked file's text (as the run sees it) is made the
server's; the answer's LSP positions (UTF-16 code units, 0-based) become the engine's
(characters, 1-based), and its file URIs workspace paths (absolute outside it).

Whatever goes wrong is a ``NavigationError`` whose message the model can act on: no
server for the file, a server that cannot start, exits or does not answer in time, an
error answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from agentls.agent.navigation import (
    Action,
    Answer,
    Call,
    FileEdits,
    Location,
    NavigationError,
    Place,
    Symbol,
    TextEdit,
    from_utf16,
    utf16_units,
)
from agentls.langservers.client import Connection, LanguageServerFailed, path_key
from agentls.langservers.pool import ServerCoverage

if TYPE_CHECKING:
    from agentls.langservers.pool import LanguageServers

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Allowed for one answer (references over a large project take seconds on a first call).
REQUEST_SECONDS = 60.0
#: Allowed for a document's first analysis before a question about it is asked anyway.
SETTLE_SECONDS = 10.0

_KINDS = {kind.value: kind.name.lower() for kind in lsp.SymbolKind}
_LOCAL_SCOPES = frozenset(
    {lsp.SymbolKind.Function, lsp.SymbolKind.Method, lsp.SymbolKind.Constructor}
)


class ServerNavigator(ServerCoverage):
    """Questions about the code, answered by the pool's language servers."""

    def __init__(self, pool: LanguageServers) -> None:
        super().__init__(pool)
        #: Servers that did not publish a document's diagnostics within SETTLE_SECONDS.
        self._quiet: set[str] = set()

    # -- asking ------------------------------------------------------------------------
    async def _connection_for(self, path: str) -> Connection:
        pool = self.pool
        entry = pool._entry(path)
        if entry is None:
            why = "; ".join(pool.take_notices()) or "no language server is configured for it"
            raise NavigationError(f"no language server answers for {path}: {why}")
        connection = await pool._connection(entry)
        if connection is None or connection.failure is not None:
            failure = connection.failure if connection is not None else None
            why = failure or "; ".join(pool.take_notices()) or "it did not start"
            raise NavigationError(f"language server {entry.name} cannot answer: {why}")
        return connection

    async def _synced(self, place: Place) -> tuple[Connection, lsp.TextDocumentIdentifier]:
        connection = await self._connection_for(place.path)
        absolute = self.pool._absolute(place.path)
        sent = connection.sync(absolute, place.text)
        # A server answers before it has found the workspace's files (a first question
        # about references finds the asked file's only): its diagnostics of this text
        # come once it has, so they are waited for, at most ``SETTLE_SECONDS``; a server
        # that let that pass once is not waited for again.
        quiet = connection.name in self._quiet
        if not quiet and await connection.settled(sent, SETTLE_SECONDS) is None:
            self._quiet.add(connection.name)
        uri = from_fs_path(absolute) or Path(absolute).as_uri()
        return connection, lsp.TextDocumentIdentifier(uri=uri)

    async def _ask(self, connection: Connection, request: Awaitable[T]) -> T:
        try:
            return await connection.request(request, REQUEST_SECONDS)
        except LanguageServerFailed as exc:
            if connection.failure is not None:
                self.pool._crashed(connection)
            raise NavigationError(f"language server {connection.name} failed: {exc}") from None
        except JsonRpcException as exc:
            raise NavigationError(f"language server {connection.name} refused: {exc}") from None

    async def ask(self, action: Action, place: Place) -> Answer:
        connection, doc = await self._synced(place)
        client = connection.client
        position = _position(place.text, place.line, place.col)
        by = connection.name
        if action == "definition":
            found: Any = await self._ask(
                connection,
                client.text_document_definition_async(lsp.DefinitionParams(doc, position)),
            )
            return Answer(by, locations=self._locations(connection, found))
        if action == "implementations":
            found = await self._ask(
                connection,
                client.text_document_implementation_async(lsp.ImplementationParams(doc, position)),
            )
            return Answer(by, locations=self._locations(connection, found))
        if action == "references":
            found = await self._ask(
                connection,
                client.text_document_references_async(
                    lsp.ReferenceParams(
                        context=lsp.ReferenceContext(include_declaration=True),
                        text_document=doc,
                        position=position,
                    )
                ),
            )
            return Answer(by, locations=self._locations(connection, found))
        if action == "hover":
            hover = await self._ask(
                connection, client.text_document_hover_async(lsp.HoverParams(doc, position))
            )
            return Answer(by, hover=_hover_text(hover))
        if action == "document_symbols":
            symbols = await self._ask(
                connection,
                client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc)),
            )
            return Answer(by, symbols=self._symbols(connection, place.path, symbols or []))
        if action in ("incoming_calls", "outgoing_calls"):
            return Answer(by, calls=await self._calls(connection, action, doc, position))
        raise NavigationError(f"unknown action {action!r}")

    async def _calls(
        self,
        connection: Connection,
        action: Action,
        doc: lsp.TextDocumentIdentifier,
        position: lsp.Position,
    ) -> list[Call]:
        client = connection.client
        items = await self._ask(
            connection,
            client.text_document_prepare_call_hierarchy_async(
                lsp.CallHierarchyPrepareParams(doc, position)
            ),
        )
        if not items:
            raise NavigationError(
                f"{connection.name} finds no function or method at that place to follow calls of"
            )
        item = items[0]
        calls: list[Call] = []
        if action == "incoming_calls":
            incoming = await self._ask(
                connection,
                client.call_hierarchy_incoming_calls_async(
                    lsp.CallHierarchyIncomingCallsParams(item)
                ),
            )
            for call in incoming or []:
                symbol = self._item(connection, call.from_)
                sites = tuple(
                    self._location(connection, call.from_.uri, r) for r in call.from_ranges
                )
                calls.append(Call(symbol, sites))
        else:
            outgoing = await self._ask(
                connection,
                client.call_hierarchy_outgoing_calls_async(
                    lsp.CallHierarchyOutgoingCallsParams(item)
                ),
            )
            for out in outgoing or []:
                sites = tuple(self._location(connection, item.uri, r) for r in out.from_ranges)
                calls.append(Call(self._item(connection, out.to), sites))
        return calls

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        if not near:
            languages = self.languages()
            if not languages:
                raise NavigationError("no language server can answer here")
            near = "any" + languages[0]
        connection = await self._connection_for(near)
        found = await self._ask(
            connection, connection.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query))
        )
        symbols: list[Symbol] = []
        for item in found or []:
            where = item.location
            if isinstance(where, lsp.Location):
                location = self._location(connection, where.uri, where.range)
            else:
                location = Location(self._path(where.uri), 0, 0)
            container = (item.container_name,) if item.container_name else ()
            symbols.append(Symbol(item.name, _kind(item.kind), location, container))
        return Answer(connection.name, symbols=symbols)

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        connection, doc = await self._synced(place)
        client = connection.client
        position = _position(place.text, place.line, place.col)
        if _prepares_rename(connection):
            prepared = await self._ask(
                connection,
                client.text_document_prepare_rename_async(lsp.PrepareRenameParams(doc, position)),
            )
            if prepared is None:
                raise NavigationError(f"{connection.name} says the symbol there cannot be renamed")
        edit = await self._ask(
            connection,
            client.text_document_rename_async(lsp.RenameParams(doc, position, new_name)),
        )
        if edit is None:
            raise NavigationError(f"{connection.name} found nothing to rename there")
        return connection.name, self._file_edits(connection, edit)

    # -- the answers as the engine's types -------------------------------------------------
    def _path(self, uri: str) -> str:
        path = to_fs_path(uri) or uri
        rel = self.pool._relative(path_key(path))
        return rel if rel is not None else path

    def _text_of(self, connection: Connection, uri: str) -> str | None:
        path = to_fs_path(uri)
        doc = connection.docs.get(path_key(path)) if path else None
        return doc.text if doc is not None else None

    def _location(self, connection: Connection, uri: str, span: lsp.Range) -> Location:
        text = self._text_of(connection, uri)
        line, col = _from_position(text, span.start)
        end_line, end_col = _from_position(text, span.end)
        return Location(self._path(uri), line, col, end_line, end_col)

    def _locations(self, connection: Connection, found: Any) -> list[Location]:
        if found is None:
            return []
        # pygls gives a list as a tuple (of Location or LocationLink), one Location alone.
        items = found if isinstance(found, list | tuple) else [found]
        out: list[Location] = []
        for item in items:
            if isinstance(item, lsp.LocationLink):
                out.append(self._location(connection, item.target_uri, item.target_selection_range))
            elif isinstance(item, lsp.Location):
                out.append(self._location(connection, item.uri, item.range))
        return out

    def _item(self, connection: Connection, item: lsp.CallHierarchyItem) -> Symbol:
        location = self._location(connection, item.uri, item.selection_range)
        return Symbol(item.name, _kind(item.kind), location, detail=item.detail or "")

    def _symbols(
        self,
        connection: Connection,
        path: str,
        found: Sequence[lsp.DocumentSymbol | lsp.SymbolInformation],
        container: tuple[str, ...] = (),
    ) -> list[Symbol]:
        uri = from_fs_path(self.pool._absolute(path)) or ""
        out: list[Symbol] = []
        for item in found:
            if isinstance(item, lsp.DocumentSymbol):
                location = self._location(connection, uri, item.selection_range)
                out.append(
                    Symbol(item.name, _kind(item.kind), location, container, item.detail or "")
                )
                if item.kind not in _LOCAL_SCOPES:  # a function's parameters, locals: noise
                    inner = (*container, item.name)
                    out += self._symbols(connection, path, item.children or [], inner)
            else:
                location = self._location(connection, item.location.uri, item.location.range)
                outer = (item.container_name,) if item.container_name else ()
                out.append(Symbol(item.name, _kind(item.kind), location, outer))
        return out

    def _file_edits(self, connection: Connection, edit: lsp.WorkspaceEdit) -> list[FileEdits]:
        per_uri: dict[str, list[lsp.TextEdit]] = {}
        for change in edit.document_changes or []:
            if not isinstance(change, lsp.TextDocumentEdit):
                raise NavigationError(
                    f"{connection.name}'s rename would also create, move or delete files, "
                    "which rename_symbol does not do"
                )
            uri = change.text_document.uri
            path = to_fs_path(uri)
            doc = connection.docs.get(path_key(path)) if path else None
            version = change.text_document.version
            if doc is not None and version is not None and version != doc.version:
                raise NavigationError(
                    f"{self._path(uri)} changed while {connection.name} computed the rename; "
                    "ask again"
                )
            per_uri.setdefault(uri, []).extend(
                e for e in change.edits if isinstance(e, lsp.TextEdit)
            )
        for uri, edits in (edit.changes or {}).items():
            per_uri.setdefault(uri, []).extend(edits)
        out = []
        for uri, edits in per_uri.items():
            text = self._text_of(connection, uri)
            converted = []
            for e in edits:
                line, col = _from_position(text, e.range.start)
                end_line, end_col = _from_position(text, e.range.end)
                converted.append(TextEdit(line, col, end_line, end_col, e.new_text))
            out.append(FileEdits(self._path(uri), tuple(converted), text))
        return out


def _prepares_rename(connection: Connection) -> bool:
    capabilities = connection.capabilities
    provider = capabilities.rename_provider if capabilities is not None else None
    return isinstance(provider, lsp.RenameOptions) and bool(provider.prepare_provider)


def _kind(kind: lsp.SymbolKind | int) -> str:
    return _KINDS.get(int(kind), "symbol")


def _hover_text(hover: lsp.Hover | None) -> str:
    if hover is None:
        return ""
    contents: Any = hover.contents
    parts = contents if isinstance(contents, list) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        else:  # MarkupContent or MarkedString
            texts.append(part.value)
    return "\n\n".join(t.strip() for t in texts if t.strip())


def _position(text: str, line: int, col: int) -> lsp.Position:
    """The engine's 1-based line and character column as an LSP position (UTF-16)."""
    return lsp.Position(line=line - 1, character=utf16_units(text, line, col))


def _from_position(text: str | None, position: lsp.Position) -> tuple[int, int]:
    return from_utf16(text, position.line, position.character)
