"""What a restore may do whatever its record says: even a record agentls wrote itself
(a command may have made a file setuid before a later run kept it) sets no setuid,
setgid or world-write bit, touches no protected path, directory or link, and changes a
mode only after a question; a record line agentls did not write is not believed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentls.agent.checkpoints import CheckpointStore, FileState, RecordLine, restore, sha256
from agentls.agent.workspace import DiskFileAccess


def _workspace(tmp_path: Path) -> tuple[Path, CheckpointStore]:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "app.py").write_text("x = 1\n")
    (root / "app.py").chmod(0o644)
    (root / "elsewhere.txt").write_text("e\n")
    (root / "link.txt").symlink_to("elsewhere.txt")
    return root, CheckpointStore(tmp_path / "s.checkpoints")


def _record(store: CheckpointStore, root: Path, path: str, mode: int) -> None:
    target = root / path
    sha = sha256(target.read_bytes()) if target.is_file() else None
    store.append(RecordLine(run="r1", path=path, before=FileState(sha=sha, mode=mode)))
    store.append(RecordLine(run="r1", path=path, after=FileState(sha=sha)))


def _modes(root: Path) -> dict[str, int]:
    return {
        p: os.lstat(root / p).st_mode & 0o7777
        for p in ("app.py", ".git/hooks", "pkg", "elsewhere.txt")
    }


async def test_a_restore_asks_and_never_sets_dangerous_bits_nor_touches_what_it_must_not(
    tmp_path: Path,
) -> None:
    root, store = _workspace(tmp_path)
    for path, mode in [
        ("app.py", 0o6777),
        (".git/hooks", 0o777),
        ("pkg", 0o777),
        ("link.txt", 0o777),
        (".vscode/tasks.json", 0o755),
    ]:
        _record(store, root, path, mode)
    before = _modes(root)
    files = DiskFileAccess(root)

    # Nobody to ask: no mode changes at all, each listed with why.
    result = await restore(store, "r1", files, confirm=False)
    assert _modes(root) == before
    reasons = {item["path"]: item["reason"] for item in result.unrestorable}
    assert "nothing here can ask you before a mode change" in reasons["app.py"]
    assert "protected path" in reasons[".git/hooks"]
    assert "protected path" in reasons[".vscode/tasks.json"]
    assert "a directory" in reasons["pkg"]
    assert "symlink" in reasons["link.txt"]

    # Asked, and declined: still nothing.
    asked: list[list[str]] = []

    async def decline(lines: list[str]) -> bool:
        asked.append(lines)
        return False

    await restore(store, "r1", files, confirm=False, confirm_modes=decline)
    assert asked == [["app.py: 0644 -> 0775"]]  # what will be set, without the dangerous bits
    assert _modes(root) == before

    async def accept(lines: list[str]) -> bool:
        return True

    result = await restore(store, "r1", files, confirm=False, confirm_modes=accept)
    assert result.restored == ["app.py"]
    assert _modes(root) == {**before, "app.py": 0o775}  # no setuid, setgid, o+w


async def test_a_line_agentls_did_not_write_is_not_believed(tmp_path: Path) -> None:
    root, store = _workspace(tmp_path)
    _record(store, root, "app.py", 0o600)  # the user's own run
    sha = sha256((root / "app.py").read_bytes())
    planted = {"run": "r1", "path": "run.sh", "before": {"sha": None, "mode": 0o4755}}
    other = {"run": "planted", "path": "app.py", "before": {"sha": sha, "mode": 0o4755}}
    with store.record.open("a") as handle:  # appended by something else than agentls
        handle.write(json.dumps(planted) + "\n" + json.dumps(other) + "\n")
    read = store.read()
    assert [r.run_id for r in read.runs] == ["r1"] and read.foreign == ["planted"]
    assert list(read.runs[0].before) == ["app.py"]  # the line added to r1 is not believed
