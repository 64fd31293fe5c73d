"""Which folders the user trusts, and which workspace-declared programs the user approved.

A repository the user clones must not be able to run code, loosen approvals or reach
the user's keys through files it ships. So a folder's own configuration is obeyed only
once the user trusts the folder (``agentls trust``, the terminal's first-run question,
or VS Code's Workspace Trust), and even then a program the workspace declares (an MCP
server, a hook) starts only after the user approved that exact definition: the approval
is bound to a digest of what would run, so a repository that changes the command under
an approved name is asked about again.

All of it lives in ``trust.json`` in the user config directory, never in a workspace.
Trusting a folder trusts what lies under it; the nearest decision wins, so a subfolder
can be untrusted inside a trusted one. Writes are atomic and serialised with a lock
file, so two agentls processes never lose each other's decisions.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentls.agent.config.userdirs import user_config_dir
from agentls.agent.errors import ConfigError

try:
    import fcntl
except ImportError:  # Windows: decisions are rare and made by one process at a time
    fcntl = None  # type: ignore[assignment]

TRUST_FILE = "trust.json"
_VERSION = 1

TrustState = Literal["trusted", "untrusted", "unknown"]
#: What an approval is for: the key under a folder's approvals (``mcp:<name>``).
ApprovalKind = Literal["mcp", "hooks"]


@dataclass(frozen=True)
class FolderDecision:
    path: str
    trusted: bool
    at: float


def canonical(folder: Path | str) -> str:
    """The form a folder is stored and compared in: absolute, symlinks resolved."""
    return os.path.realpath(os.path.expanduser(str(folder)))


class TrustStore:
    """``trust.json``: folder decisions and approvals. Each call reads the file afresh, so
    a decision made in another process (``agentls trust`` in a terminal while the
    language server runs) counts at once."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else user_config_dir()

    @property
    def path(self) -> Path:
        return self.directory / TRUST_FILE

    # -- folders ------------------------------------------------------------------------
    def state(self, folder: Path | str) -> TrustState:
        """The decision for ``folder``: its own, else its nearest decided parent's."""
        decision = self.decision(folder)
        if decision is None:
            return "unknown"
        return "trusted" if decision.trusted else "untrusted"

    def decision(self, folder: Path | str) -> FolderDecision | None:
        folders = self._read().get("folders", {})
        path = Path(canonical(folder))
        for candidate in (path, *path.parents):
            entry = folders.get(str(candidate))
            if isinstance(entry, dict) and isinstance(entry.get("trusted"), bool):
                return FolderDecision(str(candidate), entry["trusted"], float(entry.get("at", 0)))
        return None

    def is_trusted(self, folder: Path | str) -> bool:
        return self.state(folder) == "trusted"

    def set_trusted(self, folder: Path | str, trusted: bool) -> str:
        """Record the user's decision for ``folder``; returns the stored path."""
        key = canonical(folder)
        with self._update() as data:
            data.setdefault("folders", {})[key] = {"trusted": trusted, "at": time.time()}
        return key

    def folders(self) -> list[FolderDecision]:
        folders = self._read().get("folders", {})
        return sorted(
            (
                FolderDecision(path, entry["trusted"], float(entry.get("at", 0)))
                for path, entry in folders.items()
                if isinstance(entry, dict) and isinstance(entry.get("trusted"), bool)
            ),
            key=lambda d: d.path,
        )

    # -- approvals ----------------------------------------------------------------------
    def approved_digest(self, folder: Path | str, kind: ApprovalKind, name: str) -> str | None:
        """The digest the user approved for ``name`` in ``folder``, if any."""
        approvals = self._read().get("approvals", {}).get(canonical(folder), {})
        value = approvals.get(f"{kind}:{name}") if isinstance(approvals, dict) else None
        return value if isinstance(value, str) else None

    def is_approved(self, folder: Path | str, kind: ApprovalKind, name: str, digest: str) -> bool:
        return self.approved_digest(folder, kind, name) == digest

    def approve(self, folder: Path | str, kind: ApprovalKind, name: str, digest: str) -> None:
        with self._update() as data:
            data.setdefault("approvals", {}).setdefault(canonical(folder), {})[f"{kind}:{name}"] = (
                digest
            )

    def lend(self, origin: Path | str, to: Path | str) -> None:
        """Give ``to``, a worktree made from ``origin``, the trust ``origin`` has and the
        approvals stored for it. An approval is the digest of one exact definition and the
        workspace files it runs, so a lent one covers the worktree's server or hooks only
        while they are byte for byte what the user approved; anything else there asks."""
        with self._update() as data:
            decision = data.get("folders", {}).get(canonical(origin))
            if isinstance(decision, dict) and decision.get("trusted") is True:
                data.setdefault("folders", {})[canonical(to)] = {**decision, "at": time.time()}
            approvals = data.get("approvals", {}).get(canonical(origin))
            if isinstance(approvals, dict) and approvals:
                lent = data.setdefault("approvals", {}).setdefault(canonical(to), {})
                for key, digest in approvals.items():
                    if isinstance(digest, str):
                        lent.setdefault(key, digest)  # the worktree's own answer stands

    # -- the file -----------------------------------------------------------------------
    def _read(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ConfigError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{self.path} is not valid JSON (line {exc.lineno}: {exc.msg}); fix or delete it"
            ) from exc
        return data if isinstance(data, dict) else {}

    @contextlib.contextmanager
    def _update(self) -> Iterator[dict[str, Any]]:
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / f"{TRUST_FILE}.lock", "a+") as lock:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            data = self._read()
            data["version"] = _VERSION
            yield data
            fd, tmp = tempfile.mkstemp(prefix=".trust-", dir=self.directory)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out, indent=2, sort_keys=True)
                    out.write("\n")
                os.chmod(tmp, 0o600)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise


def trust_command(root: Path) -> str:
    """The shell command that trusts ``root``, for messages."""
    import shlex

    return f"agentls trust {shlex.quote(str(root))}"
