"""Undoing a run the user already undid in part (in the editor's review): the rest goes
back, and a file the user changed in other ways is left alone, as the preview says."""

from __future__ import annotations

from pathlib import Path

from agentls.agent.checkpoints import (
    CheckpointingFiles,
    CheckpointStore,
    partly_undone,
    preview_restore,
    restore,
)
from agentls.agent.workspace import DiskFileAccess, FileChange

OLD = "".join(f"v{i} = {i}\n" for i in range(1, 11))
NEW = OLD.replace("v2 = 2\n", "v2 = 20\n").replace("v8 = 8\n", "v8 = 80\nv8b = 81\n")


def test_a_mix_of_the_old_and_new_regions_is_partly_undone() -> None:
    only_first = OLD.replace("v2 = 2\n", "v2 = 20\n")
    only_second = OLD.replace("v8 = 8\n", "v8 = 80\nv8b = 81\n")
    assert partly_undone(OLD, NEW, only_first)
    assert partly_undone(OLD, NEW, only_second)
    assert partly_undone(OLD, NEW, NEW) and partly_undone(OLD, NEW, OLD)
    # The user's own text anywhere is not a mix.
    assert not partly_undone(OLD, NEW, only_first.replace("v5 = 5\n", "v5 = 5  # mine\n"))
    assert not partly_undone(OLD, NEW, NEW.replace("v2 = 20\n", "v2 = 200\n"))
    assert not partly_undone(OLD, NEW, only_first + "extra\n")
    assert partly_undone("", "a\nb\n", "") and not partly_undone("", "a\nb\n", "b\n")


async def _run_edit(root: Path, store: CheckpointStore) -> None:
    (root / "m.py").write_text(OLD)
    (root / "n.py").write_text("n = 1\n")
    files = CheckpointingFiles(DiskFileAccess(root), store, "r1")
    changes = [FileChange("m.py", NEW, OLD), FileChange("n.py", "n = 2\n", "n = 1\n")]
    outcome = await files.apply(changes, confirm=False)
    assert outcome.status == "applied", outcome


async def test_the_preview_and_the_undo_put_back_only_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    store = CheckpointStore(tmp_path / "s1.checkpoints")
    await _run_edit(root, store)
    # In the review the user undid the second change of m.py and typed in n.py.
    (root / "m.py").write_text(OLD.replace("v2 = 2\n", "v2 = 20\n"))
    (root / "n.py").write_text("n = 3  # mine\n")
    files = DiskFileAccess(root)
    preview = await preview_restore(store, "r1", files)
    assert preview == {"restores": ["m.py"], "partlyUndone": ["m.py"], "changedSince": ["n.py"]}
    result = await restore(store, "r1", files, confirm=False)
    assert result.status == "applied" and result.restored == ["m.py"], result
    assert result.conflicts == ["n.py"]
    assert (root / "m.py").read_text() == OLD
    assert (root / "n.py").read_text() == "n = 3  # mine\n"
    assert await preview_restore(store, "r1", files) == {
        "restores": [],
        "partlyUndone": [],
        "changedSince": ["n.py"],
    }
