"""Worktrees of one repository made and removed at the same time (several runs started
together, a CLI beside the server): git alone fails one ``worktree add`` that reads
another's half-written record, so agentls takes turns."""

from __future__ import annotations

import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from git_repo import git

from agentls.agent.worktrees import (
    WorktreeError,
    _changing,
    create,
    discard,
    find,
    listed,
    prepare,
)


def repository(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(300):
        (root / f"m{i}.py").write_text(f"x = {i}\n" * 50)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


@pytest.mark.parametrize("attempt", range(4))
def test_many_worktrees_made_at_once(tmp_path: Path, attempt: int) -> None:
    # Without turns, about one new repository in three lost a worktree here to "failed
    # to read .git/worktrees/<other>/commondir" (git's first worktrees are the racy ones).
    root = repository(tmp_path)
    (root / "m0.py").write_text("changed = True\n")  # each takes the user's change along
    with ThreadPoolExecutor(8) as pool:
        worktrees = list(pool.map(lambda i: create(root, f"w{i}"), range(8)))

    assert sorted(w.name for w in listed(root)) == [f"w{i}" for i in range(8)]
    for worktree in worktrees:
        assert (worktree.folder / "m0.py").read_text() == "changed = True\n"
    names = {line.split()[0] for line in git(root, "worktree", "list").splitlines()}
    assert names == {str(root.resolve())} | {w.path for w in worktrees}


def test_worktrees_removed_while_others_are_made(tmp_path: Path) -> None:
    root = repository(tmp_path)
    old = [create(root, f"old-{i}") for i in range(3)]
    with ThreadPoolExecutor(6) as pool:
        made = [pool.submit(create, root, f"new-{i}") for i in range(3)]
        gone = [pool.submit(discard, root, worktree) for worktree in old]
        worktrees = [future.result() for future in made]
        for future in gone:
            future.result()
    assert sorted(w.name for w in listed(root)) == ["new-0", "new-1", "new-2"]
    names = {line.split()[0] for line in git(root, "worktree", "list").splitlines()}
    assert names == {str(root.resolve())} | {w.path for w in worktrees}


def test_processes_take_turns_too(tmp_path: Path) -> None:
    root = repository(tmp_path)
    program = (
        "import sys; from pathlib import Path; from agentls.agent.worktrees import create; "
        "create(Path(sys.argv[1]), sys.argv[2])"
    )
    started = [
        subprocess.Popen(
            [sys.executable, "-c", program, str(root), f"p{i}"], stderr=subprocess.PIPE
        )
        for i in range(4)
    ]
    errors = [process.communicate()[1].decode() for process in started]
    assert [process.returncode for process in started] == [0] * 4, errors
    assert sorted(w.name for w in listed(root)) == ["p0", "p1", "p2", "p3"]


def test_another_process_waits_while_the_worktrees_are_being_changed(tmp_path: Path) -> None:
    root = repository(tmp_path)
    program = (
        "import sys; from pathlib import Path; from agentls.agent.worktrees import create; "
        "create(Path(sys.argv[1]), 'other')"
    )
    with _changing(root):  # as a server making a worktree of the same repository
        other = subprocess.Popen([sys.executable, "-c", program, str(root)])
        with pytest.raises(subprocess.TimeoutExpired):
            other.wait(timeout=3)  # far longer than making one worktree takes
        assert listed(root) == []
    assert other.wait(timeout=60) == 0
    assert [w.name for w in listed(root)] == ["other"]


def test_the_same_new_name_asked_twice_at_once_makes_one_worktree(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(tmp_path / "config"))
    root = repository(tmp_path)
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: prepare(root, "shared"), range(2)))
    assert sorted(new for _, new in results) == [False, True]
    assert results[0][0].path == results[1][0].path


def test_listing_while_worktrees_come_and_go_never_fails(tmp_path: Path) -> None:
    root = repository(tmp_path)
    old = [create(root, f"old-{i}") for i in range(4)]
    seen: list[int] = []
    stop = threading.Event()

    def keep_listing() -> None:
        while not stop.is_set():
            seen.append(len(listed(root)))

    with ThreadPoolExecutor(6) as pool:
        lister = pool.submit(keep_listing)
        changes = [pool.submit(create, root, f"new-{i}") for i in range(3)]
        changes += [pool.submit(discard, root, worktree) for worktree in old]
        for future in changes:
            future.result()
        stop.set()
        lister.result()  # raised nothing
    assert seen and all(0 <= n <= 7 for n in seen)
    assert len(listed(root)) == 3


def test_an_unreadable_record_is_a_clear_error(tmp_path: Path) -> None:
    root = repository(tmp_path)
    worktree = create(root, "broken")
    record = next(Path(worktree.path).parent.glob("broken.json"))
    record.write_text('{"name": "broken", "pa')
    with pytest.raises(WorktreeError, match=r"record of the worktree 'broken'.* unreadable"):
        find(root, "broken")
    # A record that cannot be read at all (as one removed between the listing of the
    # folder and its reading): the others are listed, without a crash.
    (record.parent / "gone.json").symlink_to(record.parent / "no-such-record")
    kept = create(root, "kept")
    assert [w.name for w in listed(root)] == [kept.name]
