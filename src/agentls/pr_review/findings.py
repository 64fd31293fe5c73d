"""The review agent's answer as data: the findings it must give as one JSON block, read
strictly (an answer that does not parse is a failure and nothing is posted), and the one
GitHub review made of them: at or above a severity, on lines of the diff, at most N."""

from __future__ import annotations

import json
import re
from enum import IntEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentls.pr_review.diff_lines import DiffLines


class Severity(IntEnum):
    low = 1
    medium = 2
    high = 3
    critical = 4


class Finding(BaseModel):
    model_config = ConfigDict(extra="ignore")

    path: str = Field(min_length=1)
    line: int = Field(ge=1)
    side: Literal["RIGHT", "LEFT"] = "RIGHT"
    severity: Severity
    body: str = Field(min_length=1)

    @field_validator("severity", mode="before")
    @classmethod
    def _severity_by_name(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                return Severity[value.strip().lower()]
            except KeyError:
                names = ", ".join(s.name for s in Severity)
                raise ValueError(f"severity must be one of {names}") from None
        return value

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        return value.removeprefix("./")


class Findings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    summary: str = ""
    findings: list[Finding]


class BadAnswer(ValueError):
    """The review agent's answer holds no valid findings block."""


ANSWER_FORMAT = """\
End your answer with exactly one fenced JSON block (```json ... ```) of this shape, and \
nothing after it:
{"summary": "one paragraph on the change as a whole",
 "findings": [{"path": "src/app.py", "line": 12, "side": "RIGHT",
               "severity": "low|medium|high|critical", "body": "what is wrong and the fix"}]}
`path` is relative to the repository root, `line` a line number in the new file (side \
RIGHT, an added or unchanged line of the diff) or, for a removed line, in the old file \
(side LEFT). Report only real problems; an empty list is a fine answer."""

_FENCE = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)


def parse_answer(answer: str) -> Findings:
    """The findings of ``answer``: its last fenced JSON block, or the whole answer when it
    is JSON. Raises ``BadAnswer`` saying what is wrong."""
    blocks = _FENCE.findall(answer)
    text = blocks[-1] if blocks else answer.strip()
    if not text:
        raise BadAnswer("the review agent gave no answer")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadAnswer(f"the findings block is not JSON: {error}") from None
    try:
        return Findings.model_validate(data)
    except ValidationError as error:
        raise BadAnswer(f"the findings block is not of the asked shape: {error}") from None


class ReviewComment(BaseModel):
    path: str
    line: int
    side: Literal["RIGHT", "LEFT"]
    body: str


class Review(BaseModel):
    """The body of ``POST /repos/{owner}/{repo}/pulls/{n}/reviews``."""

    commit_id: str
    event: Literal["COMMENT"] = "COMMENT"
    body: str
    comments: list[ReviewComment]


def build_review(
    findings: Findings,
    diff: DiffLines,
    *,
    commit: str,
    threshold: Severity,
    max_comments: int,
) -> Review:
    """One review of ``findings``: those at or above ``threshold`` on lines of ``diff``,
    the most severe first, at most ``max_comments``; the body says what was left out."""
    kept = [f for f in findings.findings if f.severity >= threshold]
    below = len(findings.findings) - len(kept)
    on_diff = [f for f in kept if (f.path, f.side, f.line) in diff]
    off_diff = len(kept) - len(on_diff)
    # Stable: among equals, the agent's own order.
    on_diff.sort(key=lambda f: -f.severity)
    over_cap = max(0, len(on_diff) - max_comments)
    posted = on_diff[:max_comments]
    notes = [
        f"{count} {what}"
        for count, what in (
            (below, f"below {threshold.name}"),
            (off_diff, "on lines outside the diff"),
            (over_cap, f"over the cap of {max_comments} comments"),
        )
        if count
    ]
    body = findings.summary.strip() or "agentls reviewed this pull request."
    body += f"\n\n_agentls review: {len(posted)} comment(s)"
    body += f"; findings left out: {', '.join(notes)}._" if notes else "._"
    comments = [
        ReviewComment(
            path=f.path, line=f.line, side=f.side, body=f"**{f.severity.name}**: {f.body}"
        )
        for f in posted
    ]
    return Review(commit_id=commit, body=body, comments=comments)
