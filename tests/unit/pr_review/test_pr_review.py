"""The pieces of a pull-request review: the lines of a real git diff a comment may sit on,
the review sections of AGENTS.md, and the agent's findings read strictly."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentls.pr_review.diff_lines import commentable_lines
from agentls.pr_review.findings import (
    BadAnswer,
    Finding,
    Findings,
    Severity,
    build_review,
    parse_answer,
)
from agentls.pr_review.instructions import review_sections


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_the_commentable_lines_of_a_real_diff(tmp_path: Path) -> None:
    (tmp_path / "kept.py").write_text("".join(f"k{n}\n" for n in range(1, 21)))
    (tmp_path / "gone.py").write_text("a\nb\n")
    (tmp_path / "tail.txt").write_text("x\ny")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "kept.py").write_text(
        "".join(f"k{n}\n" for n in range(1, 21)).replace("k10\n", "k10\nnew\n")
    )
    (tmp_path / "gone.py").unlink()
    (tmp_path / "fresh.py").write_text("one\ntwo\n")
    (tmp_path / "tail.txt").write_text("x\nz")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "head")
    lines = commentable_lines(git(tmp_path, "diff", "HEAD~1...HEAD").splitlines(True))
    right = {(p, n) for p, side, n in lines if side == "RIGHT"}
    left = {(p, n) for p, side, n in lines if side == "LEFT"}
    # Three lines of context either side of the added line 11.
    assert {n for p, n in right if p == "kept.py"} == set(range(8, 15))
    assert {("fresh.py", 1), ("fresh.py", 2)} <= right
    assert {("gone.py", 1), ("gone.py", 2)} <= left
    assert not any(p == "gone.py" for p, _ in right)
    # "\ No newline at end of file" moves no line number.
    assert ("tail.txt", 2) in right and ("tail.txt", 2) in left and ("tail.txt", 3) not in right


def test_the_review_sections_of_agents_md_with_their_subsections() -> None:
    text = (
        "# Project\nintro\n## Review\nbe strict\n### Severity\ncrashes are critical\n"
        "```\n# Review in a fence is code\n```\n## Build\nmake\n### Code review checklist\n"
        "tests first\n# Other\nx\n"
    )
    kept = review_sections(text)
    assert kept.splitlines() == [
        "## Review",
        "be strict",
        "### Severity",
        "crashes are critical",
        "```",
        "# Review in a fence is code",
        "```",
        "### Code review checklist",
        "tests first",
    ]
    assert review_sections("# Project\nno review heading here\n") == ""


def test_the_answer_is_its_last_json_block_or_the_whole_json() -> None:
    one = '{"findings": [{"path": "./a.py", "line": 3, "severity": "High", "body": "b"}]}'
    parsed = parse_answer(f'```json\n{{"findings": []}}\n```\nthen\n```json\n{one}\n```')
    assert parsed.findings == [Finding(path="a.py", line=3, severity=Severity.high, body="b")]
    assert parse_answer(one).findings[0].side == "RIGHT"


def _one_finding(*, line: int, severity: str) -> str:
    item = {"path": "a", "line": line, "severity": severity, "body": "b"}
    return "```json\n" + json.dumps({"findings": [item]}) + "\n```"


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("", "no answer"),
        ("All good!", "not JSON"),
        ('```json\n{"findings": [}\n```', "not JSON"),
        ('```json\n{"summary": "no list"}\n```', "not of the asked shape"),
        (_one_finding(line=0, severity="low"), "not of the asked shape"),
        (_one_finding(line=1, severity="meh"), "severity must be one of"),
    ],
)
def test_a_bad_answer_says_what_is_wrong(answer: str, why: str) -> None:
    with pytest.raises(BadAnswer, match=why):
        parse_answer(answer)


def test_a_cap_of_zero_posts_no_comment_and_says_so() -> None:
    findings = Findings(findings=[Finding(path="a", line=1, severity=Severity.low, body="b")])
    review = build_review(
        findings, frozenset({("a", "RIGHT", 1)}), commit="c", threshold=Severity.low, max_comments=0
    )
    assert review.comments == [] and "1 over the cap of 0 comments" in review.body
