"""Worktree sessions through the CLI, on a real git repository with the scripted model:
two runs at once in their own worktrees, the user's tree untouched while they run, apply
with and without a conflict, discard, a run killed mid-way found again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agentls_e2e import git

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)


def agentls_argv(*args: str) -> list[str]:
    return [sys.executable, "-P", "-m", "agentls", *args]


def env() -> dict[str, str]:
    """Read at each start: the user config directory is the test's own."""
    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def agentls(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        agentls_argv(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env(),
        timeout=180,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "README.md").write_text("# demo\n\nOne line.\n")
    (root / "app.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


def started(cwd: Path, *args: str) -> subprocess.Popen[str]:
    """``agentls args`` running in the background, its output kept."""
    return subprocess.Popen(
        agentls_argv(*args),
        cwd=cwd,
        env=env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def model(scripted: ScriptedModelServer, name: str) -> list[str]:
    return ["--model", f"openai/{name}", "--api-base", scripted.api_base, "--mode", "yolo"]


def test_two_worktree_runs_at_once_leave_the_users_tree_alone(
    repo: Path, scripted: ScriptedModelServer
) -> None:
    # The user has work in progress: an edit and a new file, both carried into the worktrees.
    (repo / "app.py").write_text("x = 2\n")
    (repo / "notes.txt").write_text("mine\n")
    scripted.add(
        "wa",
        tool_call("write_file", {"path": "docs.md", "content": "# Docs\n"}, chunk_delay=0.2),
        text("Wrote docs."),
    )
    scripted.add(
        "wb",
        tool_call(
            "edit_file", {"path": "README.md", "old_str": "One line.", "new_str": "Two lines."}
        ),
        text("Edited the README."),
    )
    runs = [
        started(repo, "run", "write docs", "--worktree", "a", *model(scripted, "wa")),
        started(repo, "run", "edit readme", "--worktree", "b", *model(scripted, "wb")),
    ]
    for run in runs:
        _, err = run.communicate(timeout=180)
        assert run.returncode == 0, err
        assert "agentls apply" in err
    # Nothing of either run reached the user's tree.
    assert not (repo / "docs.md").exists()
    assert (repo / "README.md").read_text() == "# demo\n\nOne line.\n"
    assert (repo / "app.py").read_text() == "x = 2\n" and (repo / "notes.txt").exists()
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    # Each on its own branch, one commit over the user's state.
    assert git(repo, "show", "--name-only", "--format=", "agentls/a").split() == ["docs.md"]
    assert git(repo, "show", "--name-only", "--format=", "agentls/b").split() == ["README.md"]
    assert git(repo, "show", "agentls/a:app.py") == "x = 2\n"
    assert git(repo, "show", "agentls/a:notes.txt") == "mine\n"
    listed = json.loads(agentls(repo, "worktrees", "--json").stdout)
    assert [(w["name"], w["state"], w["files"]) for w in listed] in (
        [("a", "ready", 1), ("b", "ready", 1)],
        [("b", "ready", 1), ("a", "ready", 1)],
    )

    # Apply a: its file joins the user's tree.
    applied = agentls(repo, "apply", "a", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert (repo / "docs.md").read_text() == "# Docs\n"
    # b conflicts with what the user changed since: reported, nothing written.
    (repo / "README.md").write_text("# demo\n\nThe user's line.\n")
    refused = agentls(repo, "apply", "b", "--yes")
    assert refused.returncode == 1 and "nothing was written" in refused.stderr
    assert "README.md" in refused.stderr
    assert (repo / "README.md").read_text() == "# demo\n\nThe user's line.\n"
    # Without a terminal and without --yes nothing is applied or removed.
    asked = agentls(repo, "discard", "b")
    assert asked.returncode == 1 and "--yes" in asked.stderr
    # Discard b: the worktree and its branch go.
    gone = agentls(repo, "discard", "b", "--yes")
    assert gone.returncode == 0, gone.stderr
    assert not git(repo, "branch", "--list", "agentls/b").strip()
    assert [w["name"] for w in json.loads(agentls(repo, "worktrees", "--json").stdout)] == ["a"]


def test_a_killed_run_is_found_again_and_not_discarded_while_it_holds_changes(
    repo: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "wk",
        tool_call("write_file", {"path": "half.txt", "content": "half\n"}),
        text("Still thinking. " * 400, chunk_size=2, chunk_delay=0.05),
    )
    run = subprocess.Popen(
        agentls_argv("run", "go", "--worktree", "k", *model(scripted, "wk")),
        cwd=repo,
        env=env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    worktree = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    half = (repo / worktree / "agentls-worktrees" / "k" / "half.txt").resolve()
    deadline = time.monotonic() + 120
    while not half.exists():
        assert time.monotonic() < deadline, "the run never wrote its file"
        time.sleep(0.1)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    [found] = json.loads(agentls(repo, "worktrees", "--json").stdout)
    assert found["name"] == "k" and found["state"] == "uncommitted changes"
    refused = agentls(repo, "discard", "k", "--yes")
    assert refused.returncode == 1 and "uncommitted changes" in refused.stderr
    assert half.exists()
    # Forced, it goes with what the killed run left there.
    forced = agentls(repo, "discard", "k", "--yes", "--force")
    assert forced.returncode == 0, forced.stderr
    assert not half.exists() and not git(repo, "branch", "--list", "agentls/k").strip()
    assert json.loads(agentls(repo, "worktrees", "--json").stdout) == []


def test_bad_inputs_are_named(tmp_path: Path, repo: Path, scripted: ScriptedModelServer) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    not_git = agentls(plain, "run", "x", "--worktree", "w", *model(scripted, "none"))
    assert not_git.returncode == 1 and "not in a git repository" in not_git.stderr
    git(repo, "branch", "agentls/taken")
    taken = agentls(repo, "run", "x", "--worktree", "taken", *model(scripted, "none"))
    assert taken.returncode == 1 and "exists already" in taken.stderr
    bad = agentls(repo, "run", "x", "--worktree", "../up", *model(scripted, "none"))
    assert bad.returncode == 1 and "cannot name a worktree" in bad.stderr
    unknown = agentls(repo, "apply", "nope", "--yes")
    assert unknown.returncode == 1 and "no worktree 'nope'" in unknown.stderr
    assert not scripted.requests_for("none")


def test_the_setup_step_runs_once_in_a_new_worktree_and_a_failure_stops_the_run(
    repo: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    config = user_config_dir / "config.yaml"
    config.write_text('worktree:\n  setup: "echo installing; touch .deps"\n')
    scripted.add("setup", text("Done."), text("Done again."))
    done = agentls(repo, "run", "go", "--worktree", "s", *model(scripted, "setup"))
    assert done.returncode == 0, done.stderr
    assert "setting up worktree s: $ echo installing; touch .deps" in done.stderr
    assert "  installing" in done.stderr
    folder = Path(json.loads(agentls(repo, "worktrees", "--json").stdout)[0]["path"])
    assert (folder / ".deps").exists()
    # Continuing the worktree does not set it up again.
    again = agentls(repo, "run", "more", "--worktree", "s", *model(scripted, "setup"))
    assert again.returncode == 0 and "setting up" not in again.stderr

    config.write_text("worktree:\n  setup: \"echo 'no network' >&2; exit 4\"\n")
    failed = agentls(repo, "run", "go", "--worktree", "f", *model(scripted, "setup"))
    assert failed.returncode == 1
    assert "the setup of worktree f (`echo 'no network' >&2; exit 4`) failed (exit 4)" in (
        failed.stderr
    )
    assert "no network" in failed.stderr
    assert "f" in [w["name"] for w in json.loads(agentls(repo, "worktrees", "--json").stdout)]
    assert not (repo / ".deps").exists()


def test_a_worktree_that_cannot_be_written_leaves_nothing_behind(
    repo: Path, scripted: ScriptedModelServer
) -> None:
    # A disk that fills up while the worktree is checked out, made here by a file size
    # limit that the repository's larger file exceeds.
    (repo / "big.txt").write_text("x" * 20000)
    git(repo, "add", "big.txt")
    git(repo, "commit", "-qm", "big")
    (repo / "app.py").write_text("x = 3\n")  # the user's work in progress
    argv = " ".join(agentls_argv("run", "go", "--worktree", "full", *model(scripted, "full")))
    done = subprocess.run(
        ["bash", "-c", f"ulimit -f 8; exec {argv}"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env(),
        timeout=180,
    )
    assert done.returncode == 1
    assert "could not create the worktree full" in done.stderr
    assert "your tree is untouched" in done.stderr and "room on the disk" in done.stderr
    assert (repo / "app.py").read_text() == "x = 3\n"
    assert git(repo, "branch", "--list", "agentls/full").strip() == ""
    assert json.loads(agentls(repo, "worktrees", "--json").stdout) == []
    # With room again, the same name works.
    scripted.add("full", text("Done."))
    again = agentls(repo, "run", "go", "--worktree", "full", *model(scripted, "full"))
    assert again.returncode == 0, again.stderr


def test_a_submodule_off_its_recorded_commit_is_refused(
    repo: Path, scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    library = tmp_path / "library"
    library.mkdir()
    (library / "lib.py").write_text("v = 1\n")
    git(library, "init", "-q", "-b", "main")
    git(library, "add", ".")
    git(library, "commit", "-qm", "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    git(repo, "commit", "-qm", "with lib")
    (repo / "lib" / "lib.py").write_text("v = 2\n")
    git(repo / "lib", "commit", "-qam", "moved on")  # the checkout leaves its recorded commit
    done = agentls(repo, "run", "go", "--worktree", "sub", *model(scripted, "sub"))
    assert done.returncode == 1
    assert "a submodule is not at the commit its repository records (lib)" in done.stderr
    assert git(repo, "branch", "--list", "agentls/sub").strip() == ""
