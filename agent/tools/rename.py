"""``rename_symbol``: a rename computed by a language server, applied as one edit.

The server computes the edits of every file (``CodeNavigator.rename``); they are applied
like any other edit, through ``ctx.apply``: one change over all the files, so the user
confirms it once (or reviews it per hunk in the editor), and the checkpoint and the
session hold it. Nothing is written when:

- the new name is not an identifier of the file's language (checked before the server
  is asked);
- a file the rename touches is outside the workspace (named);
- a file changed since the server computed the edits (its text is not the text the
  server answered for, or an edited range no longer holds the old name).
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.errors import AgentError
from agentls.agent.navigation import FileEdits, NavigationError, TextEdit
from agentls.agent.protected.edits import protected_targets
from agentls.agent.tools.base import FileEditingTool, ToolContext, ToolResult
from agentls.agent.tools.edit import path_arg
from agentls.agent.tools.navigate import SymbolLine, resolve_place
from agentls.agent.tools.outcome import outcome_result
from agentls.agent.tools.textual_navigator import name_at
from agentls.agent.workspace import FileChange

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


class RenameSymbolArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="File the symbol is in.")
    symbol: str = Field(description="Name, e.g. `save` or `Store.save`.")
    line: SymbolLine = None
    new_name: str


def invalid_name(path: str, name: str) -> str | None:
    """Why ``name`` cannot name a symbol in ``path``'s language, or None."""
    if path.endswith((".py", ".pyi")):
        if not name.isidentifier():
            return f"{name!r} is not a Python identifier"
        if keyword.iskeyword(name):
            return f"{name!r} is a Python keyword"
        return None
    if not _IDENTIFIER.fullmatch(name):
        return f"{name!r} is not an identifier"
    return None


class RenameSymbolTool(FileEditingTool[RenameSymbolArgs], name="rename_symbol"):
    """Rename a symbol everywhere by meaning (a language server computes it; same-named symbols
    elsewhere are left alone): one edit over every file."""

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        return path_arg(args)

    async def run(self, args: RenameSymbolArgs, ctx: ToolContext) -> ToolResult:
        why = invalid_name(args.path, args.new_name)
        if why:
            return ToolResult.fail(f"Not renamed: {why}. Nothing was changed.")
        try:
            navigator, place = await resolve_place(ctx, args.path, args.symbol, args.line)
            old = name_at(place.text, place.line, place.col)
            if old == args.new_name:
                return ToolResult.ok(f"`{old}` already has that name; nothing was changed.")
            by, edits = await navigator.rename(place, args.new_name)
            changes = await _changes(ctx, edits, old)
        except NavigationError as exc:
            return ToolResult.fail(f"Not renamed: {exc}. Nothing was changed.")
        if not changes:
            return ToolResult.fail(f"Not renamed: {by} found nothing to change.")
        counts = ", ".join(f"{c.path} ({n})" for c, n in changes)
        total = sum(n for _, n in changes)
        summary = (
            f"Renamed `{old}` to `{args.new_name}` ({by}): {total} occurrences in "
            f"{len(changes)} files: {counts}"
        )
        if ctx.run.dry_run:
            return ToolResult.ok(f"[dry run] would have: {summary}. Nothing was changed.")
        outcome = await _asking_for_protected(ctx, [c for c, _ in changes]).apply(
            [change for change, _ in changes]
        )
        return outcome_result(outcome, summary)


def _asking_for_protected(ctx: ToolContext, changes: list[FileChange]) -> ToolContext:
    """``ctx``, asking the human when the rename reaches a protected file: the policy saw
    only the path the model named, and these files are asked about in every mode."""
    root = Path(ctx.run.files.root)
    protected = protected_targets([c.path for c in changes], root, ctx.run.protected_extra)
    if not protected:
        return ctx
    return dataclasses.replace(
        ctx, confirm_edits=True, confirm_reason="; ".join(protected), confirm_insists=True
    )


async def _changes(
    ctx: ToolContext, edits: list[FileEdits], old: str
) -> list[tuple[FileChange, int]]:
    """Each file's change, checked against its text now; NavigationError (nothing
    written) for a file outside the workspace or changed since the server answered."""
    files = ctx.run.files
    # A navigator gives a path outside the workspace as an absolute one.
    outside = [e.path for e in edits if os.path.isabs(e.path)]
    if outside:
        raise NavigationError(
            "the rename would change files outside the workspace: " + ", ".join(sorted(outside))
        )
    changes = []
    for file_edits in edits:
        try:
            rel = files.rel(file_edits.path)
            files.resolve(rel, for_write=True)
            current = (await files.read_text(rel)).text
        except AgentError as exc:
            raise NavigationError(f"{file_edits.path}: {exc}") from None
        if file_edits.base_text is not None and file_edits.base_text != current:
            raise NavigationError(f"{rel} changed since the server computed the rename; ask again")
        new = _applied(rel, current, file_edits.edits, old)
        if new != current:
            changes.append((FileChange(rel, new, current), len(file_edits.edits)))
    # In path order, whatever order the server answered in: the same question reads the same.
    return sorted(changes, key=lambda change: change[0].path)


def _applied(rel: str, text: str, edits: tuple[TextEdit, ...], old: str) -> str:
    """``text`` with ``edits`` made, each range checked to hold ``old`` still."""
    starts = [0]
    for row in text.split("\n"):
        starts.append(starts[-1] + len(row) + 1)

    def offset(line: int, col: int) -> int:
        if not 0 < line < len(starts):
            raise NavigationError(f"{rel} changed since the server computed the rename; ask again")
        return min(starts[line - 1] + col - 1, len(text))

    spans = sorted(
        ((offset(e.line, e.col), offset(e.end_line, e.end_col), e.new_text) for e in edits),
        reverse=True,
    )
    out = text
    for start, end, new_text in spans:
        if old and out[start:end] != old:
            line = text.count("\n", 0, start) + 1
            raise NavigationError(
                f"{rel}:{line} no longer holds `{old}` where the server would rename it: "
                "the file changed since; ask again"
            )
        out = out[:start] + new_text + out[end:]
    return out
