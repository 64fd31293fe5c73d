"""``agent/attachCandidates {query, limit}`` → ``{items: [{kind, path, name?, line?,
symbolKind?, detail}], notes}``: the files of the index and the definitions of the repo map
that match what the user typed after `@`, best first, at most ``limit`` of each.

The search runs here, over the index the server keeps, so that a picker on a workspace of
50,000 files sends a few characters and gets a few rows back, never the whole list. The
files are matched on a thread (one pass over their paths); the symbols in the symbol
process that keeps them."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.index_service import IndexService
    from agentls.server.protocol import AttachCandidatesParams

METHOD = "agent/attachCandidates"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_attach_candidates(
        ls: AgentLanguageServer, params: AttachCandidatesParams
    ) -> dict[str, Any]:
        folder = await ls.folder_named(params.folder)
        return await candidates(folder.index_service, params.query.strip(), params.limit)


async def candidates(service: IndexService, query: str, limit: int) -> dict[str, Any]:
    from agentls.indexer.fuzzy import best, file_name_start
    from agentls.indexer.symbol_source import SymbolsUnavailable
    from agentls.server.protocol import AttachCandidate, AttachCandidatesResult

    notes: list[str] = []
    items: list[AttachCandidate] = []
    index = service.index
    if index is None:
        notes.append("no index of this workspace (indexer.enabled is false, or it is building)")
    else:
        paths = index.paths()  # a list the index replaces, never changes, when files change
        found = await asyncio.to_thread(
            best, query, paths, lambda p: p, limit, tail_from=file_name_start
        )
        items += [AttachCandidate(kind="file", path=path) for path in found]
    if query:
        try:
            hits = await service.symbol_source().search_definitions(query, limit)
        except SymbolsUnavailable as exc:
            notes.append(f"no symbols: {exc}")
        else:
            items += [
                AttachCandidate(
                    kind="symbol",
                    path=hit.path,
                    name=hit.name,
                    line=hit.line,
                    symbol_kind=hit.kind,
                    detail=hit.text,
                )
                for hit in hits
            ]
    return AttachCandidatesResult(items=items, notes=notes).to_wire()
