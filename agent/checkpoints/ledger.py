"""Which checkpoint records this user's agentls wrote: a ledger outside the workspace.

A record lives in the workspace (``.agentls/sessions/<session>.checkpoints/record.jsonl``),
where a repository can commit one: a planted record whose "before" states say
``app.py`` was mode 06777 would make an undo of "its" run chmod the user's files. So
what the record says is believed only for lines agentls itself appended: before it
appends a line, it writes the line's SHA-256 to a ledger in the user config directory,
one file per checkpoint directory (keyed by its real path). A repository cannot ship a
file there, and a sandboxed command cannot write there (the sandbox binds everything
but the workspace read-only). No secret is involved: knowing a digest does not let
anybody add it to the ledger. A line whose digest the ledger lacks (shipped in a
repository, written by another program, copied from another workspace, or written by
an agentls older than the ledger) is foreign: it is neither listed nor restored.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from agentls.agent.config.userdirs import user_config_dir

#: Under the user config directory: one ledger per checkpoint directory.
LEDGER_DIR = "checkpoint-ledgers"


def line_digest(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


class Ledger:
    """The digests of the record lines agentls wrote for one checkpoint directory."""

    def __init__(self, checkpoint_dir: Path) -> None:
        key = hashlib.sha256(os.fsencode(os.path.realpath(checkpoint_dir))).hexdigest()[:32]
        self.path = user_config_dir() / LEDGER_DIR / f"{key}.sha256"

    def add(self, line: str) -> None:
        """Vouch for ``line`` (before it is appended to the record: a crash in between
        leaves a digest of no line, never a line of ours that looks foreign)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (line_digest(line) + "\n").encode("ascii"))
        finally:
            os.close(fd)

    def digests(self) -> frozenset[str]:
        try:
            text = self.path.read_text(encoding="ascii", errors="replace")
        except OSError:
            return frozenset()
        return frozenset(text.split())

    def forget(self) -> None:
        """The checkpoint directory is gone: so is what vouched for its lines."""
        with contextlib.suppress(OSError):
            self.path.unlink()
