"""edit_file (exact, unique replacement) and apply_patch (unified diff)."""

from __future__ import annotations

import re

from agentls.agent.errors import PatchError, PathTraversalError, ValidationError
from agentls.agent.tools.base import Tool, ToolContext, ToolResult
from agentls.agent.tools.outcome import outcome_result
from agentls.agent.tools.schemas import ApplyPatchArgs, EditFileArgs
from agentls.agent.workspace import FileChange, diff_stats, unified_diff


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _occurrences(text: str, needle: str) -> list[int]:
    found: list[int] = []
    start = 0
    while True:
        at = text.find(needle, start)
        if at < 0:
            return found
        found.append(at)
        start = at + 1


class EditFileTool(Tool[EditFileArgs]):
    name = "edit_file"
    description = (
        "Replace one exact occurrence of old_str with new_str in a file. old_str must occur "
        "exactly once; include enough surrounding lines to make it unique."
    )
    args_model = EditFileArgs
    sensitive = True
    edits_files = True

    async def run(self, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        if args.old_str == "":
            return ToolResult.fail("old_str is empty; to create a file use write_file")
        try:
            path = ctx.files.rel(args.path)
            ctx.files.resolve(args.path, for_write=True)
            current = (await ctx.files.read_text(path)).text
        except (ValidationError, PathTraversalError) as exc:
            return ToolResult.fail(str(exc))
        old_str, new_str = args.old_str, args.new_str
        if "\r\n" in current and "\r\n" not in old_str:
            # Models write LF; keep a CRLF file CRLF.
            old_str = old_str.replace("\n", "\r\n")
            new_str = new_str.replace("\r\n", "\n").replace("\n", "\r\n")
        hits = _occurrences(current, old_str)
        if not hits:
            return ToolResult.fail(self._not_found(path, current, old_str))
        if len(hits) > 1:
            lines = ", ".join(str(_line_of(current, at)) for at in hits[:10])
            return ToolResult.fail(
                f"old_str occurs {len(hits)} times in {path} (at lines {lines}); it must occur "
                "exactly once. Include more surrounding context to make it unique."
            )
        at = hits[0]
        new = current[:at] + new_str + current[at + len(old_str) :]
        if new == current:
            return ToolResult.ok(f"old_str and new_str are identical; {path} is unchanged.")
        added, removed = diff_stats(unified_diff(path, current, new))
        summary = f"Edited {path} at line {_line_of(current, at)} (+{added} -{removed})"
        if ctx.dry_run:
            return ToolResult.ok(f"[dry run] would have: {summary}. Nothing was changed.")
        outcome = await ctx.apply([FileChange(path, new, current)])
        return outcome_result(outcome, summary)

    @staticmethod
    def _not_found(path: str, text: str, old_str: str) -> str:
        squashed = re.sub(r"\s+", " ", old_str).strip()
        if squashed and squashed in re.sub(r"\s+", " ", text):
            hint = (
                " It does occur if whitespace is ignored: "
                "copy the exact indentation and line breaks."
            )
        else:
            hint = " Read the file again and copy the text exactly."
        return f"old_str was not found in {path}.{hint}"


_HEADER = re.compile(r"^(---|\+\+\+) ", re.MULTILINE)


class ApplyPatchTool(Tool[ApplyPatchArgs]):
    name = "apply_patch"
    description = (
        "Apply a unified diff. Several hunks and several files (with ---/+++ headers, "
        "/dev/null to create or delete) are allowed; either all of it applies or nothing changes."
    )
    args_model = ApplyPatchArgs
    sensitive = True
    edits_files = True

    async def run(self, args: ApplyPatchArgs, ctx: ToolContext) -> ToolResult:
        from agentls.agent.patch import apply_patch, parse_patch

        patch = args.patch
        if not _HEADER.search(patch.split("@@", 1)[0]):
            patch = f"--- a/{args.path}\n+++ b/{args.path}\n{patch}"
        try:
            file_patches = parse_patch(patch)
            if not file_patches:
                return ToolResult.fail("the patch contains no hunks")
            current: dict[str, str | None] = {}
            for fp in file_patches:
                rel = ctx.files.rel(fp.path)
                ctx.files.resolve(fp.path, for_write=True)
                if rel not in current:
                    current[rel] = (
                        (await ctx.files.read_text(rel)).text
                        if await ctx.files.exists(rel)
                        else None
                    )
            results = apply_patch(patch, lambda p: current.get(ctx.files.rel(p)))
        except (PatchError, ValidationError, PathTraversalError) as exc:
            return ToolResult.fail(f"The patch was not applied (nothing changed): {exc}")
        changes = []
        for path, new in results.items():
            rel = ctx.files.rel(path)
            if new is None and not ctx.config.workspace.allow_delete:
                return ToolResult.fail(
                    f"The patch deletes {rel} but deleting files is disabled "
                    "(workspace.allow_delete is false); nothing was changed."
                )
            if new != current.get(rel):
                changes.append(FileChange(rel, new, current.get(rel)))
        if not changes:
            return ToolResult.ok("The patch changes nothing.")
        parts = []
        for change in changes:
            added, removed = diff_stats(
                unified_diff(change.path, change.base_text, change.new_text)
            )
            parts.append(f"{change.path} (+{added} -{removed})")
        summary = "Patched " + ", ".join(parts)
        if ctx.dry_run:
            return ToolResult.ok(f"[dry run] would have: {summary}. Nothing was changed.")
        outcome = await ctx.apply(changes)
        return outcome_result(outcome, summary)
