"""``python -m agentls.pr_review``: the two steps of ``ci/review-pr.sh`` around the agent's
run. ``prompt`` writes the review agent's prompt; ``review`` reads its ``--json`` result
and writes the GitHub review (exit 1 and nothing written when the answer is bad)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agentls.pr_review.diff_lines import commentable_lines
from agentls.pr_review.findings import (
    ANSWER_FORMAT,
    BadAnswer,
    Severity,
    build_review,
    parse_answer,
)
from agentls.pr_review.instructions import review_sections

#: The prompt is one argument of ``agentls run``, and Linux takes at most 128 KiB in one:
#: past these sizes (UTF-8 bytes) the diff and the instructions are cut; the agent can
#: still read the files.
MAX_DIFF_BYTES = 90_000
MAX_INSTRUCTIONS_BYTES = 20_000


def _cut(text: str, limit: int, note: str) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit].decode(errors="ignore") + f"\n[... {note}]"


def make_prompt(diff: str, agents_md: str | None, base: str, head: str) -> str:
    parts = [
        f"Review the pull request whose changes are the diff below ({base}...{head}). You may "
        "read the repository's files for context; change nothing. Comment on problems the "
        "change brings: bugs, security, missing tests, unclear code."
    ]
    instructions = review_sections(agents_md or "")
    if instructions:
        instructions = _cut(instructions, MAX_INSTRUCTIONS_BYTES, "cut here; read AGENTS.md")
        parts.append("The repository's review instructions (from AGENTS.md):\n\n" + instructions)
    diff = _cut(diff, MAX_DIFF_BYTES, "the diff is cut here; read the files for the rest")
    parts.append("The diff:\n\n```diff\n" + diff + "\n```")
    parts.append(ANSWER_FORMAT)
    return "\n\n".join(parts)


def _prompt(args: argparse.Namespace) -> int:
    agents_md = args.agents_md.read_text() if args.agents_md and args.agents_md.is_file() else None
    print(make_prompt(args.diff.read_text(), agents_md, args.base, args.head))
    return 0


def _review(args: argparse.Namespace) -> int:
    result = json.loads(args.result.read_text())
    try:
        findings = parse_answer(str(result.get("output") or ""))
    except BadAnswer as error:
        print(f"agentls-review: {error}; no review is posted", file=sys.stderr)
        return 1
    with args.diff.open() as diff:
        lines = commentable_lines(diff)
    review = build_review(
        findings,
        lines,
        commit=args.commit,
        threshold=Severity[args.threshold],
        max_comments=args.max_comments,
    )
    print(review.model_dump_json(indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentls.pr_review")
    sub = parser.add_subparsers(required=True)
    prompt = sub.add_parser("prompt", help="print the review agent's prompt")
    prompt.add_argument("--diff", type=Path, required=True)
    prompt.add_argument("--agents-md", type=Path)
    prompt.add_argument("--base", required=True)
    prompt.add_argument("--head", required=True)
    prompt.set_defaults(func=_prompt)
    review = sub.add_parser("review", help="print the GitHub review of the agent's result")
    review.add_argument("--result", type=Path, required=True, help="the run's --json result")
    review.add_argument("--diff", type=Path, required=True)
    review.add_argument("--commit", required=True, help="the head commit the review is on")
    review.add_argument("--threshold", choices=[s.name for s in Severity], default="medium")
    review.add_argument("--max-comments", type=int, default=10)
    review.set_defaults(func=_review)
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
