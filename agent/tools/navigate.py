"""``navigate_code``: definitions, references, types, outlines and calls, by meaning.

Who answers is the run's navigator (``ctx.run.navigator``: the language servers agentls
starts, later the editor) when it covers the file; otherwise the tree-sitter symbols
(``TextualNavigator``), and the answer says it is textual. The model names a place the
way it can: a file and a symbol's name (``save``, or ``Store.save`` when two classes have
one), and a line when the name alone is ambiguous; never an LSP position.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.errors import AgentError
from agentls.agent.navigation import (
    Action,
    Answer,
    Call,
    CodeNavigator,
    Location,
    NavigationError,
    NoAnswer,
    Place,
    Symbol,
)
from agentls.agent.tools.base import Tool, ToolContext, ToolResult
from agentls.agent.tools.search import live_index
from agentls.agent.tools.textual_navigator import TextualNavigator
from agentls.indexer.symbol_source import no_symbols
from agentls.regular_files import read_regular

MAX_HOVER_CHARS = 3000
#: Lines of a file where a name occurs, listed when the place is ambiguous.
MAX_CANDIDATES = 10


#: The line of a place (``rename_symbol`` too).
SymbolLine = Annotated[
    int | None, Field(ge=1, description="A line `symbol` is on, if the name is ambiguous.")
]


class NavigateCodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Action
    path: str = Field("", description="File the symbol is in.")
    symbol: str = Field(
        "", description="Name, e.g. `save` or `Store.save`; workspace_symbols: the query."
    )
    line: SymbolLine = None
    max_results: int = Field(100, ge=1, le=1000)


def navigator_for(ctx: ToolContext, path: str | None) -> CodeNavigator:
    """The run's navigator when it answers for ``path`` (any file: ``None``), else the
    tree-sitter symbols."""
    navigator = ctx.run.navigator
    why = ""
    if navigator is not None:
        if navigator.covers(path) if path else navigator.languages():
            return navigator
        why = navigator.why_not(path) if path else "no language server answers here"
    return textual_navigator(ctx, why)


def textual_navigator(ctx: ToolContext, why: str) -> TextualNavigator:
    """The tree-sitter symbols' answers, saying ``why`` no server gives them."""
    symbols = ctx.run.symbols if live_index(ctx) is not None else no_symbols
    return TextualNavigator(symbols, why)


class NavigateCodeTool(Tool[NavigateCodeArgs], name="navigate_code"):
    """Code navigation by meaning, from a language server when one serves the file (else by
    tree-sitter names, marked textual): definition, references (aliases included, same-named
    methods of other classes not), hover (type, signature), document_symbols (outline of
    `path`), workspace_symbols, implementations, incoming_calls, outgoing_calls. Prints
    `path:line: text`."""

    async def run(self, args: NavigateCodeArgs, ctx: ToolContext) -> ToolResult:
        if args.action == "workspace_symbols" and not args.symbol:
            return ToolResult.fail("workspace_symbols needs `symbol`: the name to look for")
        if args.action != "workspace_symbols" and not args.path:
            return ToolResult.fail(f"{args.action} needs `path`: the file the symbol is in")
        try:
            try:
                return await self._answer(args, ctx, None)
            except NoAnswer as exc:  # nobody in the run's chain answers for the file
                return await self._answer(args, ctx, textual_navigator(ctx, str(exc)))
        except NavigationError as exc:
            return ToolResult.fail(str(exc))

    async def _answer(
        self, args: NavigateCodeArgs, ctx: ToolContext, navigator: CodeNavigator | None
    ) -> ToolResult:
        if args.action == "workspace_symbols":
            navigator = navigator or navigator_for(ctx, args.path)
            answer = await navigator.workspace_symbols(args.symbol, args.path or "")
            return ToolResult.ok(_symbols_text(answer, args.symbol, args.max_results, navigator))
        navigator, place = await resolve_place(ctx, args.path, args.symbol, args.line, navigator)
        answer = await navigator.ask(args.action, place)
        return ToolResult.ok(_render(ctx, args, answer, navigator))


# -- the place -------------------------------------------------------------------------------


async def resolve_place(
    ctx: ToolContext,
    path: str,
    symbol: str | None,
    line: int | None,
    navigator: CodeNavigator | None = None,
) -> tuple[CodeNavigator, Place]:
    """The navigator for ``path`` (``navigator`` when given) and the place ``symbol`` (on
    ``line``) names there. Raises NavigationError with what the model can give instead."""
    try:
        rel = ctx.run.files.rel(path)
        text = (await ctx.run.files.read_text(rel)).text
    except AgentError as exc:
        raise NavigationError(str(exc)) from None
    navigator = navigator or navigator_for(ctx, rel)
    if navigator.textual and not navigator.covers(rel):
        raise NavigationError(
            f"no language server or parser understands {rel}: use grep or search_code"
        )
    if not symbol:
        return navigator, Place(rel, line or 1, 1, text)
    name = symbol.rsplit(".", 1)[-1].strip()
    if not re.fullmatch(r"[\w$]+", name):
        raise NavigationError(f"{symbol!r} is not a symbol's name")
    found = _occurrences(text, name)
    if not found:
        raise NavigationError(f"`{name}` does not appear in {rel}")
    if line is not None:
        on_line = [(row, col) for row, col in found if row == line]
        if not on_line:
            lines = ", ".join(
                str(row) for row in sorted({row for row, _ in found})[:MAX_CANDIDATES]
            )
            raise NavigationError(
                f"`{name}` is not on line {line} of {rel}; it is on lines {lines}"
            )
        return navigator, Place(rel, line, on_line[0][1], text)
    defined = await _defined(navigator, Place(rel, 1, 1, text), symbol, name)
    if len(defined) > 1:
        where = "; ".join(f"line {s.location.line}: {s.qualified}" for s in defined)
        raise NavigationError(
            f"`{symbol}` is defined {len(defined)} times in {rel} ({where}): give `line`, or "
            "the qualified name"
        )
    if defined:
        at = defined[0].location
        # The symbol's own name on its line (a textual outline gives no column).
        columns = [col for row, col in found if row == at.line]
        return navigator, Place(rel, at.line, columns[0] if columns else at.col, text)
    row, col = found[0]
    return navigator, Place(rel, row, col, text)


def _occurrences(text: str, name: str) -> list[tuple[int, int]]:
    """Each (1-based line, 1-based column) where ``name`` stands as a whole word."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    return [
        (number, match.start() + 1)
        for number, row in enumerate(text.split("\n"), 1)
        for match in word.finditer(row)
    ]


async def _defined(navigator: CodeNavigator, place: Place, symbol: str, name: str) -> list[Symbol]:
    """The file's definitions ``symbol`` names (``Store.save``: ``save`` inside ``Store``)."""
    try:
        outline = (await navigator.ask("document_symbols", place)).symbols
    except NavigationError:
        return []
    dotted = "." in symbol
    return [
        s
        for s in outline
        if s.name == name and (not dotted or ("." + s.qualified).endswith("." + symbol))
    ]


# -- the answer as lines ------------------------------------------------------------------------


class _Lines:
    """Each file's lines, read once: the live index's text or the disk."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self._files: dict[str, list[str] | None] = {}

    def text(self, location: Location) -> str:
        rows = self._rows(location.path)
        if rows is None or not 0 < location.line <= len(rows):
            return ""
        return rows[location.line - 1].strip()[:200]

    def _rows(self, path: str) -> list[str] | None:
        if path in self._files:
            return self._files[path]
        rows: list[str] | None = None
        index = live_index(self.ctx)
        data = index.text.get(path) if index is not None and index.text is not None else None
        try:
            if data is None and not path.startswith("/"):
                data = read_regular(self.ctx.run.files.resolve(path))
        except (OSError, AgentError):
            data = None
        if data is not None:
            rows = data.decode("utf-8", "replace").split("\n")
        self._files[path] = rows
        return rows


def _where(location: Location) -> str:
    outside = " (outside the workspace)" if location.path.startswith("/") else ""
    return f"{location.path}:{location.line}{outside}"


def _header(what: str, count: int, navigator: CodeNavigator, answer: Answer) -> str:
    return f"{what} ({answer.by}): {count}"


def _cut(lines: list[str], total: int, limit: int, what: str) -> list[str]:
    if total > limit:
        lines.append(f"[results truncated at {limit} of {total} {what}]")
    return lines


def _render(ctx: ToolContext, args: NavigateCodeArgs, answer: Answer, nav: CodeNavigator) -> str:
    what = args.symbol or args.path or ""
    limit = args.max_results
    lines = _Lines(ctx)
    if args.action == "hover":
        text = answer.hover.strip() or f"{answer.by} has nothing to say about `{what}` there"
        if len(text) > MAX_HOVER_CHARS:
            text = text[: MAX_HOVER_CHARS - 1] + "…"
        return f"{text}\n({answer.by})"
    if args.action == "document_symbols":
        return _symbols_text(answer, what, limit, nav)
    if args.action in ("incoming_calls", "outgoing_calls"):
        return _calls_text(answer, args.action, what, limit, lines)
    label = {
        "definition": "Definitions of",
        "references": "References to",
        "implementations": "Implementations of",
    }[args.action]
    found = sorted(set(answer.locations), key=lambda loc: (loc.path, loc.line, loc.col))
    if not found:
        return f"No {args.action} of `{what}` found ({answer.by})."
    # One line per source line: a line naming the symbol twice is listed once.
    seen: set[tuple[str, int]] = set()
    rows = []
    for loc in found:
        if (loc.path, loc.line) in seen:
            continue
        seen.add((loc.path, loc.line))
        rows.append(f"{_where(loc)}: {lines.text(loc)}".rstrip())
    body = _cut(rows[:limit], len(rows), limit, args.action)
    return "\n".join([_header(f"{label} `{what}`", len(rows), nav, answer), *body])


def _symbols_text(answer: Answer, what: str, limit: int, nav: CodeNavigator) -> str:
    if not answer.symbols:
        return f"No symbols found for `{what}` ({answer.by})."
    rows = []
    for s in answer.symbols:
        detail = f"  {s.detail}" if s.detail and s.detail != s.name else ""
        rows.append(f"{_where(s.location)}: {s.kind} {s.qualified}{detail}"[:240])
    body = _cut(rows[:limit], len(rows), limit, "symbols")
    return "\n".join([_header(f"Symbols for `{what}`", len(rows), nav, answer), *body])


def _calls_text(answer: Answer, action: str, what: str, limit: int, lines: _Lines) -> str:
    incoming = action == "incoming_calls"
    if not answer.calls:
        if incoming:
            return f"Nothing calls `{what}` ({answer.by})."
        return f"`{what}` calls nothing ({answer.by})."
    rows: list[str] = []
    for call in answer.calls:
        # A caller may come twice (once per way it reaches the function): listed once.
        rows += [row for row in _call_rows(call, incoming, lines) if row not in rows]
    rows = list(dict.fromkeys(rows))
    title = f"Calls of `{what}`" if incoming else f"Calls made by `{what}`"
    body = _cut(rows[:limit], len(rows), limit, "calls")
    return "\n".join([f"{title} ({answer.by}): {len(rows)}", *body])


def _call_rows(call: Call, incoming: bool, lines: _Lines) -> list[str]:
    symbol = call.symbol
    if incoming:  # each call site, in the caller
        return [
            f"{_where(site)}: {lines.text(site)}  [in {symbol.name}]".rstrip()
            for site in call.sites or (symbol.location,)
        ]
    at = ", ".join(str(site.line) for site in call.sites)
    called = f"  [called at line {at}]" if at else ""
    return [f"{_where(symbol.location)}: {lines.text(symbol.location)}{called}".rstrip()]
