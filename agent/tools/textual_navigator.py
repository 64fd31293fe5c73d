"""``TextualNavigator``: the ``CodeNavigator`` of the tree-sitter symbols, when nothing else
answers.

It knows names, not meanings: a definition is every definition of the name at the place, a
reference every line that uses the name, a hover the definitions' signatures. What needs
types (implementations, calls, a rename) it refuses, saying a language server is needed.
Every answer is marked textual (``textual = True``), and the tools say so.
"""

from __future__ import annotations

import asyncio
import re

from agentls.agent.navigation import (
    Action,
    Answer,
    FileEdits,
    Location,
    NavigationError,
    Place,
    Symbol,
)
from agentls.indexer.languages import language_of, split_ext
from agentls.indexer.repomap import SymbolHit
from agentls.indexer.symbol_source import SymbolSource, SymbolsUnavailable
from agentls.indexer.symbols import extract, grammar_name

BY = "tree-sitter (textual: by name, not by meaning)"
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
#: How long a first question waits for the symbols' background fill.
FILL_WAIT_S = 10.0


def name_at(text: str, line: int, col: int) -> str:
    """The identifier at 1-based ``line``:``col`` of ``text`` ("" when none)."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return ""
    row = lines[line - 1]
    for match in _WORD.finditer(row):
        if match.start() <= col - 1 < match.end():
            return match.group()
    return ""


class TextualNavigator:
    """Answers from the run's symbols (``symbols``), or none when it keeps none."""

    textual = True

    def __init__(self, symbols: SymbolSource, why: str = "") -> None:
        self.symbols = symbols
        #: Why no language server answers instead, said with every answer and error.
        self.why = why
        self.by = f"{BY}; {why}" if why else BY

    def why_not(self, path: str) -> str:
        return "" if self.covers(path) else f"no parser for {path}'s language"

    def covers(self, path: str) -> bool:
        return _grammar(path) is not None

    def languages(self) -> list[str]:
        return []

    async def _filled(self) -> SymbolSource:
        await self.symbols.wait_filled(FILL_WAIT_S)
        return self.symbols

    async def ask(self, action: Action, place: Place) -> Answer:
        if action == "document_symbols":
            return Answer(
                self.by, symbols=await asyncio.to_thread(file_symbols, place.path, place.text)
            )
        if action in ("implementations", "incoming_calls", "outgoing_calls"):
            raise NavigationError(
                f"{action.replace('_', ' ')} need a language server, and none answers for "
                f"{place.path}; use find_references or search_code"
                + (f" ({self.why})" if self.why else "")
            )
        try:
            return await self._ask(action, place)
        except NavigationError as exc:
            raise NavigationError(f"{exc} ({self.why})" if self.why else str(exc)) from None

    async def _ask(self, action: Action, place: Place) -> Answer:
        name = name_at(place.text, place.line, place.col)
        if not name:
            raise NavigationError(f"no name at {place.path}:{place.line}:{place.col}")
        try:
            source = await self._filled()
            if action == "references":
                hits = await source.find_references(name)
                return Answer(self.by, locations=[Location(h.path, h.line, 1) for h in hits])
            found = await source.find_definitions(name)
        except SymbolsUnavailable as exc:
            raise NavigationError(f"no symbols: {exc}; use search_code or grep") from None
        if action == "hover":
            return Answer(self.by, hover="\n".join(f"{h.path}:{h.line}: {h.text}" for h in found))
        return Answer(self.by, locations=[Location(h.path, h.line, 1) for h in found])

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        try:
            hits = await (await self._filled()).search_definitions(query, 200)
        except SymbolsUnavailable as exc:
            raise NavigationError(f"no symbols: {exc}; use search_code or grep") from None
        return Answer(self.by, symbols=[_symbol(h) for h in hits])

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        why = f" ({self.why})" if self.why else ""
        raise NavigationError(
            f"renaming needs a language server, and none answers for {place.path}{why}; a "
            "rename by name would change every same-named symbol: edit the uses one by one"
        )


def _grammar(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    ext = split_ext(name)
    return grammar_name(language_of(name, ext), ext)


def file_symbols(path: str, text: str) -> list[Symbol]:
    """The definitions of one file, parsed now (its text as the run sees it)."""
    grammar = _grammar(path)
    if grammar is None:
        raise NavigationError(f"no parser for {path}'s language: use search_code")
    return [
        Symbol(d.name, d.kind, Location(path, d.line, 1), detail=d.signature)
        for d in extract(text.encode("utf-8", "replace"), grammar).definitions
    ]


def _symbol(hit: SymbolHit) -> Symbol:
    return Symbol(hit.name, hit.kind, Location(hit.path, hit.line, 1), detail=hit.text)
