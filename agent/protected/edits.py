"""Which of the files a tool call would change are protected, and why.

A file tool says which paths a call targets (``Tool.target_paths``), as the model wrote
them. ``protected_targets`` turns each into every workspace-relative name it may stand
for before asking ``agent.protected.paths.protected_reason``: the path normalised as
written (``./a/../.mcp.json`` is ``.mcp.json``), and, given the workspace root, where
it resolves on disk (a symlink ``v -> .vscode`` makes ``v/tasks.json`` the tasks file).
On file systems that ignore case (macOS, Windows) ``.VSCode/tasks.json`` is the same
file too. Any of them being protected is enough: a false alarm costs a question. The
run adds the files its approved MCP servers and hooks run (``extra``).
"""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from agentls.agent.protected.paths import (
    ANY_LEVEL_NAMES,
    NO_EXTRA,
    ROOT_NAMES,
    Extra,
    configured_hooks,
    protected_reason,
)

#: File systems that compare names without case, where ``.VSCODE`` is ``.vscode``.
CASE_INSENSITIVE = sys.platform in ("darwin", "win32")

_CANONICAL = {
    name.casefold(): name for key in (*ROOT_NAMES, *ANY_LEVEL_NAMES) for name in key.split("/")
}


def _written(path: str) -> str | None:
    """``path`` normalised as written; None when it leaves the workspace or is absolute
    (the file tools refuse those anyway)."""
    if not path or os.path.isabs(path) or path.startswith("~"):
        return None
    normal = posixpath.normpath(path.replace(os.sep, "/"))
    if normal == ".." or normal.startswith("../"):
        return None
    return normal


def _resolved(path: str, root: Path) -> str | None:
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    if real != real_root and not real.startswith(real_root + os.sep):
        return None
    return Path(os.path.relpath(real, real_root)).as_posix()


def _case_folded(relative: str) -> str:
    return "/".join(_CANONICAL.get(part.casefold(), part) for part in PurePosixPath(relative).parts)


def candidates(path: str, root: Path | None) -> list[str]:
    """Every workspace-relative name ``path`` may stand for."""
    found: list[str] = []
    written = _written(path)
    if written is not None:
        found.append(written)
    if root is not None and not os.path.isabs(path) and "\x00" not in path:
        resolved = _resolved(path, root)
        if resolved is not None:
            found.append(resolved)
    if CASE_INSENSITIVE:
        found += [_case_folded(name) for name in found]
    return list(dict.fromkeys(found))


def protected_targets(
    paths: Iterable[str], root: Path | None = None, extra: Extra = NO_EXTRA
) -> list[str]:
    """Why each protected path among ``paths`` is protected (one reason per file);
    ``extra``: what the run protects beyond the fixed names (approved programs' files)."""
    reasons: list[str] = []
    hooks = configured_hooks(root) if root is not None else None
    for path in paths:
        for name in candidates(path, root):
            reason = protected_reason(name, extra, hooks)
            if reason is not None:
                if reason not in reasons:
                    reasons.append(reason)
                break
    return reasons
