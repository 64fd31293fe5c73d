"""Path confinement and the disk FileAccess, on the real filesystem."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentls.agent.errors import InvalidTargetError, PathTraversalError
from agentls.agent.workspace import (
    DiskFileAccess,
    EditProposal,
    FileChange,
    confine,
    diff_stats,
    make_proposal,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (tmp_path / "secret.txt").write_text("top secret\n")
    return root


@pytest.mark.parametrize(
    "path",
    ["../secret.txt", "/etc/passwd", "~/x", "src/../../secret.txt", "a\x00b", "", "  "],
)
def test_confine_refuses_escapes(ws: Path, path: str) -> None:
    with pytest.raises(PathTraversalError):
        confine(ws, path)


def test_confine_refuses_symlink_out(ws: Path) -> None:
    (ws / "link.txt").symlink_to(ws.parent / "secret.txt")
    with pytest.raises(PathTraversalError):
        confine(ws, "link.txt")


def test_confine_refuses_parent_symlink_out(ws: Path) -> None:
    (ws / "outside").symlink_to(ws.parent)
    with pytest.raises(PathTraversalError):
        confine(ws, "outside/secret.txt")
    with pytest.raises(PathTraversalError):
        confine(ws, "outside/new_file.txt", for_write=True)


def test_confine_allows_symlink_inside(ws: Path) -> None:
    (ws / "alias.py").symlink_to(ws / "src" / "app.py")
    assert confine(ws, "alias.py") == (ws / "src" / "app.py").resolve()


def test_writes_into_git_refused(ws: Path) -> None:
    confine(ws, ".git/config")  # reading is fine
    with pytest.raises(PathTraversalError, match=r"\.git"):
        confine(ws, ".git/config", for_write=True)
    with pytest.raises(PathTraversalError):
        confine(ws, "src/../.git/hooks/pre-commit", for_write=True)


async def test_read_binary_oversize_and_non_utf8(ws: Path) -> None:
    files = DiskFileAccess(ws, max_file_size=100)
    (ws / "bin.dat").write_bytes(b"abc\x00def")
    (ws / "big.txt").write_text("x" * 101)
    (ws / "latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(InvalidTargetError, match="binary"):
        await files.read_text("bin.dat")
    with pytest.raises(InvalidTargetError, match=r"over the 100-byte limit"):
        await files.read_text("big.txt")
    with pytest.raises(InvalidTargetError, match="not found"):
        await files.read_text("missing.txt")
    latin = await files.read_text("latin.txt")
    assert latin.lossy and latin.text == "caf\ufffd\n"


async def test_crlf_is_preserved_on_read(ws: Path) -> None:
    (ws / "win.txt").write_bytes(b"a\r\nb\r\n")
    assert (await DiskFileAccess(ws).read_text("win.txt")).text == "a\r\nb\r\n"


async def test_atomic_write_keeps_mode_and_leaves_no_temp(ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    files = DiskFileAccess(ws)
    outcome = await files.apply([FileChange("run.sh", "echo new\n", "echo old\n")], confirm=False)
    assert outcome.status == "applied"
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert sorted(os.listdir(ws)) == [".git", "run.sh", "src"]


async def test_multi_file_change_is_all_or_nothing(ws: Path) -> None:
    files = DiskFileAccess(ws)
    changes = [
        FileChange("src/app.py", "print('bye')\n", "print('hi')\n"),
        FileChange("src/other.py", "x = 1\n", "something else\n"),  # stale: file does not exist
    ]
    outcome = await files.apply(changes, confirm=False)
    assert outcome.status == "stale"
    assert (ws / "src" / "app.py").read_text() == "print('hi')\n"
    assert not (ws / "src" / "other.py").exists()


async def test_stale_base_text_refused(ws: Path) -> None:
    files = DiskFileAccess(ws)
    outcome = await files.apply(
        [FileChange("src/app.py", "new\n", "not what is there\n")], confirm=False
    )
    assert outcome.status == "stale"
    assert (ws / "src" / "app.py").read_text() == "print('hi')\n"


async def test_confirmation_asks_and_respects_no(ws: Path) -> None:
    seen: list[EditProposal] = []

    async def say_no(proposal: EditProposal) -> bool:
        seen.append(proposal)
        return False

    files = DiskFileAccess(ws, confirmer=say_no)
    outcome = await files.apply(
        [FileChange("src/app.py", "print('bye')\n", "print('hi')\n")], confirm=True
    )
    assert outcome.status == "rejected"
    assert seen and "+print('bye')" in seen[0].diff and seen[0].added == 1
    assert (ws / "src" / "app.py").read_text() == "print('hi')\n"


async def test_confirmation_without_anyone_to_ask_refuses(ws: Path) -> None:
    outcome = await DiskFileAccess(ws).apply(
        [FileChange("src/app.py", "x\n", "print('hi')\n")], confirm=True
    )
    assert outcome.status == "rejected" and "nobody can be asked" in outcome.message


async def test_changed_since_read(ws: Path) -> None:
    files = DiskFileAccess(ws)
    text = (await files.read_text("src/app.py")).text
    files.remember_read("src/app.py", text)
    assert not files.changed_since_read("src/app.py", text)
    assert files.changed_since_read("./src/app.py", text + "# typed by the user\n")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("---\nkey: 1\n", "key: 1\n", (0, 1)),  # a YAML document marker removed
        ("int i;\n", "int i;\n++i;\n", (1, 0)),  # a line that starts like a diff header
        ("a\n+++b\n", "a\n---c\n", (1, 1)),
        (None, "x\ny\n", (2, 0)),
        ("x\n", None, (0, 1)),
        ("same\n", "same\n", (0, 0)),
    ],
)
def test_diff_stats_counts_lines_not_prefixes(
    old: str | None, new: str | None, expected: tuple[int, int]
) -> None:
    assert diff_stats(old, new) == expected


def test_proposal_totals_every_file() -> None:
    proposal = make_proposal(
        [FileChange("a.yaml", "key: 1\n", "---\nkey: 1\n"), FileChange("b.c", "++i;\n", None)]
    )
    assert (proposal.added, proposal.removed) == (1, 1)
