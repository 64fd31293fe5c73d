"""Bubblewrap sandbox for commands and Python the agent runs.

With ``bwrap`` installed (Debian ``bubblewrap``; ``scripts/ensure_bwrap.sh``), a
command runs as::

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
          --bind WS WS              (read-only: --ro-bind WS WS)
          --unshare-pid --die-with-parent [--unshare-net] --chdir CWD -- ARGV

* The whole filesystem is visible but read-only; only the workspace is writable
  (``workspace-write``), or nothing is (``read-only``).
* ``/tmp`` is a fresh, private, writable tmpfs, discarded when the command ends:
  test runners and compilers need a scratch directory, and a private one means the
  command can neither read nor plant files in the host's ``/tmp``. A workspace that
  lives under ``/tmp`` stays visible because it is bound after the tmpfs.
* ``--unshare-pid``: the command sees only its own processes, and when bwrap dies
  the kernel kills everything left in the namespace, so nothing escapes the
  timeout by daemonising.
* ``--unshare-net`` unless ``network: true``: no network at all (loopback only).
* Not isolated: reading files (secrets readable by the user stay readable), the
  user id, and resource use (CPU, memory).

Without bwrap, commands run unsandboxed and the tool result says so once.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SandboxMode = Literal["workspace-write", "read-only", "off"]

NO_BWRAP_NOTE = "(no sandbox: bubblewrap not installed)"
_EROFS = re.compile(r"read-only file system|EROFS", re.IGNORECASE)
_NETWORK = re.compile(
    r"network is unreachable|could not resolve host|temporary failure in name resolution|"
    r"name or service not known|nodename nor servname|failed to establish a new connection|"
    r"ENETUNREACH|EAI_AGAIN|getaddrinfo",
    re.IGNORECASE,
)


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


@dataclass(frozen=True)
class Sandbox:
    """How to wrap one command; ``bwrap=None`` means no sandbox is available."""

    workspace: Path
    mode: SandboxMode = "workspace-write"
    network: bool = False
    bwrap: str | None = None

    @property
    def active(self) -> bool:
        return self.mode != "off" and self.bwrap is not None

    @property
    def missing(self) -> bool:
        """A sandbox was asked for but cannot be had."""
        return self.mode != "off" and self.bwrap is None

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        if not self.active or self.bwrap is None:
            return list(argv)
        ws = str(self.workspace)
        bind = "--bind" if self.mode == "workspace-write" else "--ro-bind"
        wrapped = [
            self.bwrap,
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            *_rebind_under_tmp(argv),
            bind,
            ws,
            ws,
            "--unshare-pid",
            "--die-with-parent",
        ]
        if not self.network:
            wrapped.append("--unshare-net")
        wrapped += ["--chdir", str(cwd), "--", *argv]
        return wrapped

    def explain_failure(self, output: str, exit_code: int | None) -> list[str]:
        """Notes for the model when a failure looks caused by the sandbox itself."""
        if not self.active or exit_code == 0:
            return []
        notes = []
        if _EROFS.search(output):
            where = (
                "the whole filesystem, the workspace included,"
                if self.mode == "read-only"
                else "the filesystem outside the workspace"
            )
            notes.append(
                f"Note: the sandbox makes {where} read-only (sandbox: {self.mode}); "
                "/tmp is private and discarded after the command."
            )
        if not self.network and _NETWORK.search(output):
            notes.append("Note: the sandbox disables network access (network: false).")
        return notes


def make_sandbox(workspace: Path, mode: SandboxMode, network: bool) -> Sandbox:
    return Sandbox(
        workspace=Path(os.path.realpath(workspace)),
        mode=mode,
        network=network,
        bwrap=find_bwrap() if mode != "off" else None,
    )


def _rebind_under_tmp(argv: list[str]) -> list[str]:
    """Read-only binds for what the command needs that lives under /tmp.

    The private tmpfs on /tmp would hide an interpreter or a program installed there
    (a checkout, and so its .venv, cloned under /tmp): bind those back, read-only.
    """
    candidates = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    if argv and os.path.isabs(argv[0]):
        candidates.add(os.path.dirname(os.path.realpath(argv[0])))
    binds: list[str] = []
    for path in sorted(candidates):
        real = os.path.realpath(path)
        if real.startswith("/tmp/") and os.path.isdir(real):
            binds += ["--ro-bind", real, real]
            if path != real and path.startswith("/tmp/"):
                binds += ["--ro-bind", real, path]
    return binds
