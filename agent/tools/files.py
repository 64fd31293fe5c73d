"""read_file, write_file, delete_file, list_files."""

from __future__ import annotations

import asyncio
import fnmatch
from typing import Any

from agentls.agent.errors import InvalidTargetError, PathTraversalError
from agentls.agent.indexing import workspace_rules
from agentls.agent.tools.base import FileEditingTool, Tool, ToolContext, ToolResult
from agentls.agent.tools.edit import path_arg
from agentls.agent.tools.outcome import outcome_result
from agentls.agent.tools.schemas import DeleteFileArgs, ListFilesArgs, ReadFileArgs, WriteFileArgs
from agentls.agent.workspace import FileChange, diff_stats
from agentls.indexer.ignore import IgnoreRules

MAX_LIST_ENTRIES = 500


class ReadFileTool(Tool[ReadFileArgs], name="read_file"):
    """Read a text file of the workspace. Returns its exact content (the editor's unsaved text when
    the file is open)."""

    async def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        try:
            text_file = await ctx.run.files.read_text(args.path)
        except (InvalidTargetError, PathTraversalError) as exc:
            return ToolResult.fail(str(exc))
        ctx.run.files.remember_read(args.path, text_file.text)
        if text_file.lossy:
            return ToolResult.ok(
                f"[note: {text_file.path} is not valid UTF-8; undecodable bytes are shown as "
                f"U+FFFD and an edit would replace them]\n{text_file.text}"
            )
        return ToolResult.ok(text_file.text)


class WriteFileTool(FileEditingTool[WriteFileArgs], name="write_file"):
    """Create a file or replace its whole content (mode=overwrite), or append to it (mode=append).
    Prefer edit_file or apply_patch to change part of an existing file."""

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        return path_arg(args)

    async def run(self, args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
        try:
            path = ctx.run.files.rel(args.path)
            ctx.run.files.resolve(args.path, for_write=True)
            exists = await ctx.run.files.exists(path)
            if exists and await ctx.run.files.is_dir(path):
                return ToolResult.fail(f"{path} is a directory")
            base = (await ctx.run.files.read_text(path)).text if exists else None
        except (InvalidTargetError, PathTraversalError) as exc:
            return ToolResult.fail(str(exc))
        if (
            base is not None
            and args.mode == "overwrite"
            and ctx.run.files.changed_since_read(path, base)
        ):
            return ToolResult.fail(
                f"Not written: {path} changed since you read it (the user may have edited it). "
                "Read it again, then write."
            )
        new = (base or "") + args.content if args.mode == "append" else args.content
        if base == new:
            return ToolResult.ok(f"{path} already has this content; nothing to do.")
        added, removed = diff_stats(base, new)
        verb = "Created" if base is None else ("Appended to" if args.mode == "append" else "Wrote")
        summary = f"{verb} {path} (+{added} -{removed})"
        if ctx.run.dry_run:
            return ToolResult.ok(f"[dry run] would have: {summary}. Nothing was changed.")
        outcome = await ctx.apply([FileChange(path, new, base)])
        return outcome_result(outcome, summary)


class DeleteFileTool(FileEditingTool[DeleteFileArgs], name="delete_file"):
    """Delete a file of the workspace (only when the workspace allows deletion)."""

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        return path_arg(args)

    async def run(self, args: DeleteFileArgs, ctx: ToolContext) -> ToolResult:
        if not ctx.run.config.workspace.allow_delete:
            return ToolResult.fail(
                "Deleting files is disabled (workspace.allow_delete is false). Tell the user "
                "which file should be deleted instead."
            )
        try:
            path = ctx.run.files.rel(args.path)
            ctx.run.files.resolve(args.path, for_write=True)
            if await ctx.run.files.is_dir(path):
                return ToolResult.fail(f"{path} is a directory; delete_file removes files only")
            base = (await ctx.run.files.read_text(path)).text
        except (InvalidTargetError, PathTraversalError) as exc:
            return ToolResult.fail(str(exc))
        if ctx.run.dry_run:
            return ToolResult.ok(f"[dry run] would have deleted {path}. Nothing was changed.")
        outcome = await ctx.apply([FileChange(path, None, base)])
        return outcome_result(outcome, f"Deleted {path}")


class ListFilesTool(Tool[ListFilesArgs], name="list_files"):
    """List files and directories (directories end with /). Use pattern to filter by name and
    recursive to descend. Leaves out what search leaves out: ignored (.gitignore) and excluded files
    and directories."""

    async def run(self, args: ListFilesArgs, ctx: ToolContext) -> ToolResult:
        try:
            base = ctx.run.files.rel(args.path)
            if not await ctx.run.files.is_dir(base):
                return ToolResult.fail(f"not a directory: {args.path}")
            rules = workspace_rules(ctx.run.files.root, ctx.run.config.indexer)
            if base not in ("", ".") and await asyncio.to_thread(rules.ignored, base, is_dir=True):
                return ToolResult.ok(
                    f"{base} is left out of the workspace's files (indexer.exclude_dirs, "
                    "indexer.exclude_patterns or a .gitignore), as it is for search; read_file "
                    "still reads a file in it by its path."
                )
            entries: list[str] = []
            truncated = await self._walk(ctx, rules, base, args, entries)
        except (InvalidTargetError, PathTraversalError) as exc:
            return ToolResult.fail(str(exc))
        if not entries:
            return ToolResult.ok(
                f"No entries in {base}" + (f" matching {args.pattern}" if args.pattern else "")
            )
        text = "\n".join(entries)
        if truncated:
            text += f"\n[listing cut at {MAX_LIST_ENTRIES} entries; narrow the path or pattern]"
        return ToolResult.ok(text)

    async def _walk(
        self, ctx: ToolContext, rules: IgnoreRules, base: str, args: ListFilesArgs, out: list[str]
    ) -> bool:
        pending = [base]
        while pending:
            directory = pending.pop(0)
            names = await ctx.run.files.list_dir(directory)
            prefix = "" if directory in ("", ".") else f"{directory}/"
            for rel in await asyncio.to_thread(_kept, rules, prefix, names):
                name = rel.removeprefix(prefix)
                if rel.endswith("/") and args.recursive:
                    pending.append(rel.rstrip("/"))
                if args.pattern is None or fnmatch.fnmatch(name.rstrip("/"), args.pattern):
                    out.append(rel)
                    if len(out) >= MAX_LIST_ENTRIES:
                        return True
        return False


def _kept(rules: IgnoreRules, prefix: str, names: list[str]) -> list[str]:
    """The entries of one directory that the workspace's rules keep, as relative paths."""
    kept = []
    for name in names:
        rel = prefix + name
        if not rules.ignored(rel.rstrip("/"), is_dir=rel.endswith("/")):
            kept.append(rel)
    return kept
