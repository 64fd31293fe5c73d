"""Symbol tools: ``find_symbol`` (where a name is defined) and ``find_references``.

They ask the run's symbols (``ctx.run.symbols``), which follow the live index
(kept current with the watcher's changes); without a live index they say so, and the
search tools still work.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.errors import AgentError
from agentls.agent.tools.base import AnyTool, Tool, ToolContext, ToolResult
from agentls.agent.tools.search import live_index
from agentls.indexer.repomap import SymbolHit
from agentls.indexer.symbol_source import SymbolSource, SymbolsUnavailable, no_symbols
from agentls.indexer.symbols import supported_languages
from agentls.regular_files import read_regular

#: How long a first call waits for the background fill before answering with what it has.
FIRST_FILL_WAIT_S = 10.0

Kind = Literal[
    "class", "function", "method", "interface", "struct", "enum", "trait", "type", "impl"
]


class FindSymbolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Exact name of the class, function, method or type.")
    kind: Kind | None = Field(None, description="Only definitions of this kind.")
    max_results: int = Field(50, ge=1, le=500, description="Maximum definitions listed.")


class FindReferencesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Exact identifier whose uses to list.")
    max_results: int = Field(100, ge=1, le=1000, description="Maximum lines listed.")


async def _symbols(ctx: ToolContext) -> SymbolSource:
    """The run's symbols, once filled; without a live index, none (they say why)."""
    if live_index(ctx) is None:
        return no_symbols
    await ctx.run.symbols.wait_filled(FIRST_FILL_WAIT_S)
    return ctx.run.symbols


def _render(hits: list[SymbolHit], max_results: int, what: str) -> str:
    lines = [f"{h.path}:{h.line}: {h.text}".rstrip() for h in hits[:max_results]]
    if len(hits) > max_results:
        lines.append(f"[results truncated at {max_results} of {len(hits)} {what}]")
    return "\n".join(lines)


def _unavailable(exc: SymbolsUnavailable) -> ToolResult:
    return ToolResult.fail(f"No symbols: {exc}; use search_code or grep instead.")


_LANGUAGES = ", ".join(supported_languages())


class FindSymbolTool(Tool[FindSymbolArgs], name="find_symbol"):
    description: ClassVar[str] = (
        "Find where a class, function, method or type is defined. Prints "
        f"`path:line: signature` per definition. Languages: {_LANGUAGES}."
    )

    async def run(self, args: FindSymbolArgs, ctx: ToolContext) -> ToolResult:
        try:
            hits = await (await _symbols(ctx)).find_definitions(args.name, args.kind)
        except SymbolsUnavailable as exc:
            return _unavailable(exc)
        if not hits:
            kind = f" of kind {args.kind}" if args.kind else ""
            return ToolResult.ok(f"No definition of {args.name!r}{kind} found")
        return ToolResult.ok(_render(hits, args.max_results, "definitions"))


class FindReferencesTool(Tool[FindReferencesArgs], name="find_references"):
    """List where an identifier is used (by name, not by type resolution): `path:line: text` per
    line, at most 8 lines per file."""

    async def run(self, args: FindReferencesArgs, ctx: ToolContext) -> ToolResult:
        try:
            hits = await (await _symbols(ctx)).find_references(args.name)
        except SymbolsUnavailable as exc:
            return _unavailable(exc)
        if not hits:
            return ToolResult.ok(f"No references to {args.name!r} found")
        shown = hits[: args.max_results]
        texts = _line_texts(ctx, shown)
        filled = [
            SymbolHit(h.path, h.line, h.kind, h.name, texts.get((h.path, h.line), ""))
            for h in shown
        ]
        return ToolResult.ok(
            _render(filled + hits[args.max_results :], args.max_results, "references")
        )


def _line_texts(ctx: ToolContext, hits: list[SymbolHit]) -> dict[tuple[str, int], str]:
    """The text of each hit's line, read once per file (held text when the index has it)."""
    index = live_index(ctx)
    out: dict[tuple[str, int], str] = {}
    by_path: dict[str, list[int]] = {}
    for h in hits:
        by_path.setdefault(h.path, []).append(h.line)
    for path, lines in by_path.items():
        data = index.text.get(path) if index is not None and index.text is not None else None
        if data is None:
            try:
                data = read_regular(ctx.run.files.resolve(path))
            except (OSError, AgentError):
                continue
        rows = data.split(b"\n")
        for line in lines:
            if line <= len(rows):
                out[(path, line)] = rows[line - 1].decode("utf-8", "replace").strip()[:200]
    return out


SYMBOL_TOOLS: tuple[type[AnyTool], ...] = (FindSymbolTool, FindReferencesTool)
