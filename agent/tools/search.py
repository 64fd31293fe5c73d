"""Search tools: ``search_code`` (regex), ``grep`` (literal text), ``find_files`` (names).

They use the run's live index (``ctx.run.index``) when it indexes this workspace (held text:
no disk reads) and otherwise list and read the disk under the same rules
(excludes, ``.gitignore``, binaries, size limit). Results are the same either way.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.config.models import AppConfig
from agentls.agent.errors import PathTraversalError
from agentls.agent.indexing import index_settings
from agentls.agent.tools.base import AnyTool, Tool, ToolContext, ToolResult
from agentls.indexer.builder import RepoIndexer
from agentls.indexer.index import RepoIndex
from agentls.indexer.query import find_paths, search_files
from agentls.indexer.search import SearchResult, compile_query
from agentls.indexer.tree import display

MAX_FOUND_FILES = 500


def live_index(ctx: ToolContext) -> RepoIndex | None:
    """The run's index when it covers this workspace."""
    index = ctx.run.index
    return index if index is not None and index.root == ctx.run.files.root else None


def _indexer(ctx: ToolContext, config: AppConfig) -> RepoIndexer:
    return RepoIndexer(ctx.run.files.root, index_settings(config.indexer))


def _target(ctx: ToolContext, path: str) -> str:
    """Workspace-relative form of ``path`` ("" for the root). Raises PathTraversalError."""
    resolved = ctx.run.files.resolve(path)
    if not resolved.exists():
        raise FileNotFoundError(path)
    return resolved.relative_to(ctx.run.files.root).as_posix().removeprefix(".")


def _where(rel: str) -> str:
    return display(rel) or "."


async def _run_search(
    ctx: ToolContext,
    *,
    pattern: str,
    literal: bool,
    case_sensitive: bool,
    path: str,
    file_pattern: str,
    recursive: bool,
    context_lines: int,
    max_results: int,
) -> ToolResult:
    try:
        rel = _target(ctx, path)
    except PathTraversalError as exc:
        return ToolResult.fail(f"path refused: {exc}")
    except FileNotFoundError:
        return ToolResult.fail(f"path not found: {path}")
    try:
        query = compile_query(
            pattern,
            literal=literal,
            case_sensitive=case_sensitive,
            context_lines=context_lines,
            max_results=max_results,
        )
    except re.error as exc:
        return ToolResult.fail(f"invalid regular expression {pattern!r}: {exc}")
    result: SearchResult = await search_files(
        query,
        rel=rel,
        file_glob=file_pattern,
        recursive=recursive,
        indexer=_indexer(ctx, ctx.run.config),
        index=live_index(ctx),
    )
    if not result.matches:
        return ToolResult.ok(
            f"No matches for {pattern!r} in {_where(rel)} "
            f"({result.files_searched} files matching {file_pattern!r} searched)"
        )
    return ToolResult.ok(result.render(context_lines, max_results))


#: Arguments the search tools share, described once.
SearchedPath = Annotated[
    str, Field(description="Directory (or one file) to search, workspace-relative.")
]
Recursive = Annotated[bool, Field(description="Search subdirectories too.")]
MaxLines = Annotated[
    int,
    Field(ge=1, le=1000, description="Maximum matching lines; the output says when it was cut."),
]


class SearchCodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(
        description="Python regular expression, matched line by line (^ and $ are line "
        "anchors; \\w, \\d, \\s and case-insensitivity are ASCII-only). Use (?i) to ignore case."
    )
    path: SearchedPath = "."
    file_pattern: str = Field(
        "*.py",
        description="Glob on file names, e.g. `*.py`, `*.{ts,tsx}`; with `/` it matches "
        "the relative path, e.g. `src/**/*.js`. Use `*` for every file.",
    )
    context_lines: int = Field(
        2, ge=0, le=20, description="Lines of context printed before and after each match."
    )
    max_results: MaxLines = 50


class GrepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(description="Literal text to find (not a regular expression).")
    path: SearchedPath = "."
    file_pattern: str = Field("*", description="Glob on file names, e.g. `*.md`.")
    recursive: Recursive = True
    case_sensitive: bool = Field(True, description="Match letter case exactly (ASCII).")
    max_results: MaxLines = 100


class FindFilesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(
        description="Glob on file names, e.g. `*.yaml`, `test_*.py`, `*.{ts,tsx}`; with `/` "
        "it matches the relative path, e.g. `src/**/models.py`."
    )
    path: str = Field(".", description="Directory to search, workspace-relative.")
    recursive: Recursive = True


class SearchCodeTool(Tool[SearchCodeArgs], name="search_code"):
    """Search file contents with a regular expression. Prints `path:line: text` for matching lines
    and `path-line- text` for context lines, groups separated by `--`. Skips ignored (.gitignore),
    excluded, binary and oversized files."""

    async def run(self, args: SearchCodeArgs, ctx: ToolContext) -> ToolResult:
        return await _run_search(
            ctx,
            pattern=args.pattern,
            literal=False,
            case_sensitive=True,
            path=args.path,
            file_pattern=args.file_pattern,
            recursive=True,
            context_lines=args.context_lines,
            max_results=args.max_results,
        )


class GrepTool(Tool[GrepArgs], name="grep"):
    """Find lines containing literal text. Prints `path:line: text` per matching line. Skips ignored
    (.gitignore), excluded, binary and oversized files."""

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolResult:
        if args.pattern == "":
            return ToolResult.fail("pattern is empty: give the text to find")
        return await _run_search(
            ctx,
            pattern=args.pattern,
            literal=True,
            case_sensitive=args.case_sensitive,
            path=args.path,
            file_pattern=args.file_pattern,
            recursive=args.recursive,
            context_lines=0,
            max_results=args.max_results,
        )


class FindFilesTool(Tool[FindFilesArgs], name="find_files"):
    """List files whose name matches a glob, one workspace-relative path per line. Skips ignored
    (.gitignore) and excluded files."""

    async def run(self, args: FindFilesArgs, ctx: ToolContext) -> ToolResult:
        try:
            rel = _target(ctx, args.path)
        except PathTraversalError as exc:
            return ToolResult.fail(f"path refused: {exc}")
        except FileNotFoundError:
            return ToolResult.fail(f"path not found: {args.path}")
        if not ctx.run.files.resolve(args.path).is_dir():
            return ToolResult.fail(f"{args.path} is a file, not a directory")
        found = await find_paths(
            args.pattern,
            rel=rel,
            recursive=args.recursive,
            indexer=_indexer(ctx, ctx.run.config),
            index=live_index(ctx),
        )
        if not found:
            return ToolResult.ok(f"No files match {args.pattern!r} in {_where(rel)}")
        lines = [display(p) for p in found[:MAX_FOUND_FILES]]
        if len(found) > MAX_FOUND_FILES:
            lines.append(f"[results truncated at {MAX_FOUND_FILES} of {len(found)} files]")
        return ToolResult.ok("\n".join(lines))


SEARCH_TOOLS: tuple[type[AnyTool], ...] = (SearchCodeTool, GrepTool, FindFilesTool)
