"""A checkpoint record a repository commits under ``.agentls/``: its one run "changed"
a file of the repository and ``.git/hooks``, and undoing it would put back modes of its
choosing (setuid, setgid, world-writable)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

PLANTED_RUN = "shipped-run"
PLANTED_MODE = 0o6777


def plant_checkpoint(root: Path, path: str) -> None:
    """Commit a record under ``root/.agentls`` whose run left ``path`` as it is now, but
    says it was mode 06777 before, and ``.git/hooks`` 0777."""
    sessions = root / ".agentls" / "sessions"
    store = sessions / "shipped.checkpoints"
    store.mkdir(parents=True)
    (sessions / "shipped.jsonl").write_text("")
    sha = hashlib.sha256((root / path).read_bytes()).hexdigest()
    lines = [
        {"run": PLANTED_RUN, "at": 9e9, "path": path, "before": {"sha": sha, "mode": PLANTED_MODE}},
        {"run": PLANTED_RUN, "at": 9e9, "path": path, "after": {"sha": sha}},
        {"run": PLANTED_RUN, "at": 9e9, "path": ".git/hooks", "before": {"mode": 0o777}},
    ]
    (store / "record.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=repo", "-C", str(root)]
    subprocess.run([*git, "add", "-A", "-f"], check=True)
    subprocess.run([*git, "commit", "-qm", "ship a checkpoint"], check=True)


def modes(root: Path, path: str) -> tuple[int, int]:
    """The modes a planted restore would change: the file's and ``.git/hooks``'."""
    return (
        (root / path).stat().st_mode & 0o7777,
        (root / ".git" / "hooks").stat().st_mode & 0o7777,
    )
