"""Pull-request reviews on CI: ``ci/review-pr.sh`` on a real git repository with a base
and a head commit, the scripted model as the review agent, and a fake ``gh`` on PATH that
records the API call. One review is posted: the findings at or above the threshold, on
lines of the diff, at most the cap; nothing is written to the repository and the token is
in no artifact and reaches no model."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from git_repo import git

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "ci" / "review-pr.sh"
TOKEN = "ghs_" + "R3v1ewT0kenF0rTheF4keGhCl1" + "x" * 10

pytestmark = pytest.mark.timeout(300)

AGENTS_MD = """\
# Demo

## Style
Tabs are forbidden.

## Review
Flag every print() left in library code.

### Severity
A crash is critical.

## Releases
Tag with vX.Y.Z.
"""

APP_BASE = "".join(f"line_{n} = {n}\n" for n in range(1, 31))
APP_HEAD = APP_BASE.replace("line_20 = 20\n", "line_20 = 20\nprint(line_20)\nprint('x')\n")
OLD = "keep = 1\nremove_me = 2\nkeep_too = 3\n"


@pytest.fixture
def pull_request(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository checked out at a pull request's head: (root, base, head)."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "AGENTS.md").write_text(AGENTS_MD)
    (root / "src" / "app.py").write_text(APP_BASE)
    (root / "src" / "old.py").write_text(OLD)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-qb", "feature")
    (root / "src" / "app.py").write_text(APP_HEAD)
    (root / "src" / "old.py").write_text(OLD.replace("remove_me = 2\n", ""))
    git(root, "commit", "-qam", "print things")
    return root, base, git(root, "rev-parse", "HEAD").strip()


def fake_gh(tmp_path: Path) -> Path:
    """A ``gh`` that records each call (its arguments, the --input file, whether it had a
    token) as one JSON line in the returned file; ``pr view`` answers $FAKE_GH_BASE."""
    log = tmp_path / "gh-calls.jsonl"
    recorder = tmp_path / "gh_recorder.py"
    recorder.write_text(
        "import json, os, sys\n"
        "args = sys.argv[1:]\n"
        "body = None\n"
        "if '--input' in args:\n"
        "    with open(args[args.index('--input') + 1]) as f:\n"
        "        body = json.load(f)\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    out.write(json.dumps({'args': args, 'body': body,\n"
        "        'token': os.environ.get('GH_TOKEN') == " + repr(TOKEN) + "}) + '\\n')\n"
        "print(os.environ.get('FAKE_GH_BASE', '') if args[:2] == ['pr', 'view'] else '{}')\n"
    )
    gh = tmp_path / "fake-bin" / "gh"
    gh.parent.mkdir()
    gh.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(recorder))} "$@"\n'
    )
    gh.chmod(0o755)
    return log


def run_review(
    tmp_path: Path, repo: Path, scripted: ScriptedModelServer, **env: str
) -> subprocess.CompletedProcess[str]:
    wrapper = tmp_path / "bin" / "agentls"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -P -m agentls "$@"\n')
    wrapper.chmod(0o755)
    full = {
        **os.environ,
        "PATH": f"{tmp_path / 'fake-bin'}:{os.environ['PATH']}",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "AGENTLS_BIN": str(wrapper),
        "AGENTLS_PYTHON": sys.executable,
        "AGENTLS_MODEL": "openai/review",
        "AGENTLS_API_BASE": scripted.api_base,
        "AGENTLS_OUTPUT_DIR": str(tmp_path / "out"),
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_REPOSITORY": "octo/demo",
        "AGENTLS_PR_NUMBER": "7",
        "GH_TOKEN": TOKEN,
        **env,
    }
    return subprocess.run(
        ["bash", str(SCRIPT)], cwd=repo, env=full, capture_output=True, text=True, timeout=240
    )


def answer(findings: list[dict[str, object]]) -> str:
    block = json.dumps({"summary": "Two prints slipped in.", "findings": findings}, indent=1)
    return f"I read the change.\n\n```json\n{block}\n```\n"


def finding(
    path: str, line: int, severity: str, body: str, side: str = "RIGHT"
) -> dict[str, object]:
    return {"path": path, "line": line, "side": side, "severity": severity, "body": body}


def test_a_review_posts_one_review_of_the_findings_on_the_diff_above_the_threshold_and_cap(
    tmp_path: Path, pull_request: tuple[Path, str, str], scripted: ScriptedModelServer
) -> None:
    repo, base, head = pull_request
    log = fake_gh(tmp_path)
    findings = [
        finding("src/app.py", 21, "high", "A print() in library code."),
        finding("src/app.py", 2, "high", "Off the diff: an unchanged, far line."),
        finding("src/app.py", 22, "low", "Below the threshold."),
        finding("src/old.py", 2, "critical", "Removing this breaks callers.", side="LEFT"),
        finding("src/app.py", 22, "high", "A second print()."),
        finding("src/app.py", 20, "medium", "Over the cap (a context line)."),
        finding("README.md", 1, "critical", "Off the diff: a file it does not touch."),
    ]
    scripted.add(
        "review",
        tool_call("read_file", {"path": "src/app.py"}),
        text(answer(findings)),
    )
    done = run_review(
        tmp_path, repo, scripted, AGENTLS_REVIEW_BASE=base, AGENTLS_REVIEW_MAX_COMMENTS="3"
    )
    assert done.returncode == 0, done.stderr

    [call] = [json.loads(line) for line in log.read_text().splitlines()]
    assert call["args"][:4] == ["api", "--method", "POST", "repos/octo/demo/pulls/7/reviews"]
    assert call["token"] is True  # gh, and only gh, got the token
    review = call["body"]
    assert review["commit_id"] == head and review["event"] == "COMMENT"
    assert [(c["path"], c["line"], c["side"]) for c in review["comments"]] == [
        ("src/old.py", 2, "LEFT"),
        ("src/app.py", 21, "RIGHT"),
        ("src/app.py", 22, "RIGHT"),
    ]
    assert review["comments"][0]["body"] == "**critical**: Removing this breaks callers."
    assert review["body"].startswith("Two prints slipped in.")
    assert "1 below medium" in review["body"]
    assert "2 on lines outside the diff" in review["body"]
    assert "1 over the cap of 3 comments" in review["body"]
    # Every comment sits on a line the diff shows.
    diff = git(repo, "diff", f"{base}...{head}")
    assert "+print(line_20)" in diff and "-remove_me = 2" in diff

    # The agent was the read-only review agent, on the diff, with the review sections only.
    first = scripted.requests_for("review")[0]
    prompt = "\n".join(str(m["content"]) for m in first.messages if m["role"] == "user")
    assert "Flag every print() left in library code." in prompt and "A crash is critical" in prompt
    assert "+print(line_20)" in prompt and '"findings"' in prompt
    tools = {t["function"]["name"] for t in first.body.get("tools") or []}
    assert "read_file" in tools and not tools & {"write_file", "edit_file", "execute_command"}

    # Nothing written to the repository; the token is nowhere but in gh's environment.
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain", "--", ".", ":(exclude).agentls") == ""
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "pr.diff",
        "result.json",
        "review.json",
        "session.jsonl",
    ]
    for artifact in out.iterdir():
        assert TOKEN not in artifact.read_text(), artifact.name
    assert json.loads((out / "review.json").read_text()) == review
    for request in scripted.requests_for("review"):
        assert TOKEN not in json.dumps(request.body)
    assert (tmp_path / "github_output").read_text().splitlines() == ["status=success", "comments=3"]


def test_an_answer_without_valid_findings_posts_nothing(
    tmp_path: Path, pull_request: tuple[Path, str, str], scripted: ScriptedModelServer
) -> None:
    repo, base, _ = pull_request
    log = fake_gh(tmp_path)
    scripted.add("review", text("Looks fine to me, no JSON here."))
    done = run_review(tmp_path, repo, scripted, AGENTLS_REVIEW_BASE=base)
    assert done.returncode == 1
    assert "no review is posted" in done.stderr
    assert not log.exists()
    assert (tmp_path / "github_output").read_text().splitlines() == ["status=failed", "comments=0"]

    # A block of the wrong shape (an unknown severity) is as bad.
    scripted.add("review", text(answer([finding("src/app.py", 21, "urgent", "x")])))
    bad = run_review(tmp_path, repo, scripted, AGENTLS_REVIEW_BASE=base)
    assert bad.returncode == 1 and "severity must be one of" in bad.stderr
    assert not log.exists()


def test_bad_review_inputs_stop_before_the_agent_runs(
    tmp_path: Path, pull_request: tuple[Path, str, str], scripted: ScriptedModelServer
) -> None:
    repo, base, _ = pull_request
    fake_gh(tmp_path)
    no_base = run_review(tmp_path, repo, scripted, AGENTLS_REVIEW_POST="false")
    assert no_base.returncode == 3 and "no base" in no_base.stderr
    unknown = run_review(tmp_path, repo, scripted, AGENTLS_REVIEW_BASE="nope")
    assert unknown.returncode == 3 and "no commit nope" in unknown.stderr
    no_pr = run_review(tmp_path, repo, scripted, AGENTLS_REVIEW_BASE=base, AGENTLS_PR_NUMBER="")
    assert no_pr.returncode == 3 and "no pull request" in no_pr.stderr
    not_head = run_review(
        tmp_path, repo, scripted, AGENTLS_REVIEW_BASE=base, AGENTLS_REVIEW_HEAD=base
    )
    assert not_head.returncode == 3 and "not the pull request's head" in not_head.stderr
    assert not scripted.requests_for("review")


def test_the_review_workflow_reads_only_and_keeps_no_token_in_the_checkout() -> None:
    example = yaml.safe_load((ROOT / "examples" / "workflows" / "agentls-review.yml").read_text())
    assert example["permissions"] == {"contents": "read", "pull-requests": "write"}
    steps = example["jobs"]["review"]["steps"]
    [checkout] = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert checkout["with"]["persist-credentials"] is False
    assert checkout["with"]["fetch-depth"] == 0
    [action] = [s for s in steps if str(s.get("uses", "")).startswith("agentls/agentls")]
    assert action["with"]["mode"] == "review"
    action_yml = yaml.safe_load((ROOT / "action.yml").read_text())
    assert set(action["with"]) <= set(action_yml["inputs"])
    [review_step] = [s for s in action_yml["runs"]["steps"] if s.get("id") == "review"]
    assert "ci/review-pr.sh" in review_step["run"]
    # A mistyped mode stops before anything runs.
    [check] = [s for s in action_yml["runs"]["steps"] if s.get("name") == "Check the mode"]
    assert action_yml["runs"]["steps"].index(check) == 0
    for mode, code in (("run", 0), ("review", 0), ("reveiw", 3)):
        done = subprocess.run(
            ["bash", "-c", check["run"]], env={**os.environ, "MODE": mode}, capture_output=True
        )
        assert done.returncode == code, mode


def test_a_review_asked_for_in_a_comment_gets_its_base_from_gh(
    tmp_path: Path, pull_request: tuple[Path, str, str], scripted: ScriptedModelServer
) -> None:
    repo, base, head = pull_request
    log = fake_gh(tmp_path)
    scripted.add("review", text(answer([finding("src/app.py", 21, "medium", "A print().")])))
    done = run_review(tmp_path, repo, scripted, FAKE_GH_BASE=base)
    assert done.returncode == 0, done.stderr
    view, post = [json.loads(line) for line in log.read_text().splitlines()]
    assert view["args"] == [
        "pr",
        "view",
        "7",
        "--repo",
        "octo/demo",
        "--json",
        "baseRefOid",
        "--jq",
        ".baseRefOid",
    ]
    assert post["body"]["commit_id"] == head
    assert [(c["path"], c["line"]) for c in post["body"]["comments"]] == [("src/app.py", 21)]
