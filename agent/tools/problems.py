"""get_problems: the current errors and warnings of the workspace's files."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.errors import InvalidTargetError, PathTraversalError
from agentls.agent.events import Notice
from agentls.agent.problems import SEVERITIES, Severity
from agentls.agent.tools.base import Tool, ToolContext, ToolResult


class GetProblemsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    paths: list[str] | None = Field(
        None,
        max_length=50,
        description="Files to check, workspace-relative; by default every file whose "
        "problems are known (those open in the editor, or read or edited in this run).",
    )
    severity: Severity = Field(
        "warning",
        description="The least severe problems listed: `error` lists errors only, `hint` "
        "everything.",
    )
    max_results: int = Field(
        100, ge=1, le=1000, description="Most problems listed; the output says when it was cut."
    )


class GetProblemsTool(Tool[GetProblemsArgs], name="get_problems"):
    """List the current problems (errors, warnings...) the language servers report for files of
    the workspace, as `path:line:col severity: message (source)`. Edits already report the
    problems they introduce; use this to see a file's problems before changing it or after
    running a command that changed files."""

    async def run(self, args: GetProblemsArgs, ctx: ToolContext) -> ToolResult:
        source = ctx.run.problems
        if source is None:
            return ToolResult.fail(
                "No problems are known here: neither the editor nor a language server reports "
                "them (diagnostics.enabled may be false). Run the project's checker with "
                "execute_command instead."
            )
        texts: dict[str, str] | None = None
        notes: list[str] = []
        if args.paths:
            texts = {}
            for path in args.paths:
                try:
                    rel = ctx.run.files.rel(path)
                    if not source.covers(rel):
                        notes.append(f"{rel}: no language server checks this kind of file")
                        continue
                    texts[rel] = (await ctx.run.files.read_text(rel)).text
                except (InvalidTargetError, PathTraversalError) as exc:
                    notes.append(f"{path}: {exc}")
            if not texts:
                return ToolResult.ok("\n".join(notes))
        wait = ctx.run.config.diagnostics.wait_ms / 1000
        found = await source.problems(texts, wait)
        for notice in source.take_notices():
            ctx.run.observer(Notice("warning", notice))
        notes += [
            f"{path}: no language server checks this kind of file" for path in found.unchecked
        ]
        notes += [
            f"{path}: its problems are not known: the language server did not report them "
            f"within {wait:g} s (diagnostics.wait_ms)"
            for path in found.late
        ]
        lowest = SEVERITIES.index(args.severity)
        listed = sorted(
            (p for p in found.problems if p.rank <= lowest),
            key=lambda p: (p.path, p.line, p.col, p.rank),
        )
        lines = [p.render() for p in listed[: args.max_results]]
        if len(listed) > args.max_results:
            lines.append(f"[{len(listed) - args.max_results} more not shown; narrow the paths]")
        known = [path for path in texts or () if path not in found.late]
        if not listed and (known or texts is None):
            where = ", ".join(known) if known else "the files whose problems are known"
            kinds = "errors" if args.severity == "error" else f"problems down to {args.severity}"
            lines.append(f"No {kinds} in {where}.")
        return ToolResult.ok("\n".join([*lines, *notes]))
