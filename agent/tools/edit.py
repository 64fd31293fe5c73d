"""edit_file (exact, unique replacement) and apply_patch (unified diff or V4A)."""

from __future__ import annotations

import re
from typing import Any

from agentls.agent.errors import InvalidTargetError, PatchError, PathTraversalError
from agentls.agent.policy.masked_edits import masked_hint
from agentls.agent.tools.base import FileEditingTool, ToolContext, ToolResult
from agentls.agent.tools.outcome import outcome_result
from agentls.agent.tools.patch_format import PatchFormat
from agentls.agent.tools.schemas import ApplyPatchArgs, EditFileArgs
from agentls.agent.workspace import FileChange, change_stats, diff_stats


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


def path_arg(args: dict[str, Any]) -> list[str]:
    """The ``path`` argument of a file tool call, for ``target_paths``."""
    path = args.get("path")
    return [path] if isinstance(path, str) and path else []


class EditFileTool(FileEditingTool[EditFileArgs], name="edit_file"):
    """Replace one exact occurrence of old_str with new_str in a file. old_str must occur exactly
    once; include enough surrounding lines to make it unique."""

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        return path_arg(args)

    async def run(self, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
        if args.old_str == "":
            return ToolResult.fail("old_str is empty; to create a file use write_file")
        try:
            path = ctx.run.files.rel(args.path)
            ctx.run.files.resolve(args.path, for_write=True)
            current = (await ctx.run.files.read_text(path)).text
        except (InvalidTargetError, PathTraversalError) as exc:
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
        added, removed = diff_stats(current, new)
        summary = f"Edited {path} at line {_line_of(current, at)} (+{added} -{removed})"
        if ctx.run.dry_run:
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
            hint = masked_hint(old_str, text) or " Read the file again and copy the text exactly."
        return f"old_str was not found in {path}.{hint}"


_HEADER = re.compile(r"^(---|\+\+\+) ", re.MULTILINE)

_UNIFIED_HELP = (
    "a unified diff: `--- a/path` and `+++ b/path` headers, then `@@ -l,n +l,n @@` hunks of "
    "' ' context, '-' removed and '+' added lines (line numbers may be approximate; "
    "/dev/null as a side creates or deletes a file)"
)
_V4A_HELP = (
    "V4A: `*** Begin Patch`, then per file `*** Add File: path` (every line '+'), "
    "`*** Delete File: path`, or `*** Update File: path` (optionally `*** Move to: new/path`) "
    "with changes of ' ' context, '-' removed and '+' added lines, about 3 context lines "
    "around each change, `@@ <line>` naming the enclosing class or function when the "
    "context is not unique, `*** End of File` after a change at the end, no line numbers; "
    "then `*** End Patch`"
)


def apply_patch_description(lead: PatchFormat) -> str:
    """The tool's description, with the format the model is likelier to write well first."""
    first, second = (_V4A_HELP, _UNIFIED_HELP) if lead == "v4a" else (_UNIFIED_HELP, _V4A_HELP)
    return (
        f"Edit files with a patch. Write {first}. Also accepted: {second}. Paths are relative "
        "to the workspace; several files per patch; either all of it applies or nothing "
        "changes, and an error names the file and the lines that did not match."
    )


def with_headers(patch: str, path: str | None) -> str | None:
    """The patch as applied: a unified diff without ---/+++ headers gets them for
    ``path``; None when it names no file and no ``path`` is given."""
    from agentls.agent.patch import is_v4a

    if is_v4a(patch) or _HEADER.search(patch.split("@@", 1)[0]):
        return patch
    if not path:
        return None
    return f"--- a/{path}\n+++ b/{path}\n{patch}"


def patch_paths(patch: str) -> list[str]:
    """Every file a patch (with its headers) reads or writes, as the patch names them,
    in both formats: the old and new name of a move. Raises PatchError."""
    from agentls.agent.patch import is_v4a, parse_patch, parse_v4a

    if is_v4a(patch):
        return [path for op in parse_v4a(patch) for path in op.paths]
    return [path for fp in parse_patch(patch) for path in (fp.source, fp.path)]


class ApplyPatchTool(FileEditingTool[ApplyPatchArgs], name="apply_patch"):
    description = apply_patch_description("unified")

    def __init__(self, lead: PatchFormat = "unified") -> None:
        self.lead = lead

    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        schema["function"]["description"] = apply_patch_description(self.lead)
        return schema

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        """Every file the patch touches (and ``path``); a patch that does not parse
        changes nothing, so it names none."""
        patch = args.get("patch")
        named = path_arg(args)
        if not isinstance(patch, str):
            return named
        text = with_headers(patch, named[0] if named else None)
        if text is None:
            return named
        try:
            return named + patch_paths(text)
        except PatchError:
            return named

    async def run(self, args: ApplyPatchArgs, ctx: ToolContext) -> ToolResult:
        from agentls.agent.patch import apply_patch

        patch = with_headers(args.patch, args.path)
        if patch is None:
            return ToolResult.fail(
                "The patch names no file: give `path`, or write ---/+++ headers (or a "
                "V4A patch with *** Update File: lines). Nothing was changed."
            )
        current: dict[str, str | None] = {}
        try:
            paths = patch_paths(patch)
            if not paths:
                return ToolResult.fail("the patch contains no hunks")
            for path in paths:
                rel = ctx.run.files.rel(path)
                ctx.run.files.resolve(path, for_write=True)
                if rel not in current:
                    current[rel] = (
                        (await ctx.run.files.read_text(rel)).text
                        if await ctx.run.files.exists(rel)
                        else None
                    )
            results = apply_patch(patch, lambda p: current.get(ctx.run.files.rel(p)))
        except (PatchError, InvalidTargetError, PathTraversalError) as exc:
            # V4A's own `*** Update File:` lines are not quoted text.
            quoted = "\n".join(x for x in patch.splitlines() if not x.startswith("*** "))
            hint = masked_hint(quoted, "".join(t for t in current.values() if t))
            return ToolResult.fail(f"The patch was not applied (nothing changed): {exc}{hint}")
        changes = []
        for path, new in results.items():
            rel = ctx.run.files.rel(path)
            if rel not in current:
                # The policy judged the files the patch names; write no other.
                return ToolResult.fail(
                    f"The patch would change {rel}, which its headers do not name; nothing "
                    "was changed."
                )
            if new is None and not ctx.run.config.workspace.allow_delete:
                return ToolResult.fail(
                    f"The patch deletes {rel} (a move or rename deletes the old name too) but "
                    "deleting files is disabled (workspace.allow_delete is false); nothing "
                    "was changed."
                )
            if new != current.get(rel):
                changes.append(FileChange(rel, new, current.get(rel)))
        if not changes:
            return ToolResult.ok("The patch changes nothing.")
        parts = []
        for change in changes:
            added, removed = change_stats(change)
            parts.append(f"{change.path} (+{added} -{removed})")
        summary = "Patched " + ", ".join(parts)
        if ctx.run.dry_run:
            return ToolResult.ok(f"[dry run] would have: {summary}. Nothing was changed.")
        outcome = await ctx.apply(changes)
        return outcome_result(outcome, summary)
