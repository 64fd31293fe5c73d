"""The workspace files an approved program runs or reads: found, fingerprinted, protected.

An approval of a workspace's MCP server or hooks is stored as a digest. A digest of the
definition alone would let the repository (or any command run in the workspace) change
what runs while the definition stays the same: approve ``python srv.py``, then rewrite
``srv.py``. So the digest also holds the contents of the workspace files the definition
names: every word of a command line (a program, a script argument, ``--config=x.toml``)
and every file setting (``env_file``) that names an existing regular file the repository
can reach: written inside the workspace (relative to it, to the program's working
directory, or to a workspace directory another word names), or resolving there. A name
that reaches the file through a symlink counts with the link's target, and the contents
counted are the target's, wherever it lies: the repository chose where the link points.

What is not covered, and said so in docs/security.md: what a covered script imports
or reads by itself, and programs found on PATH or outside the workspace (the user's).

While an approval is stored, these files are protected (``agent.program_files`` names
them, with why): the run passes them where protection is decided
(``agent.protected.paths``), so an edit or a command that would change one is asked
about or kept read-only, like ``.mcp.json``.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Bytes read at a time while hashing (a large binary is hashed without holding it).
_CHUNK = 1 << 20


@dataclass(frozen=True)
class WorkspaceFile:
    """One workspace file a definition names, as it is now."""

    #: Workspace-relative, as the definition reaches it (before any symlink).
    path: str
    #: Where it resolves when that differs (a symlink): workspace-relative, or absolute
    #: when it leads outside the workspace.
    target: str | None
    #: The contents' SHA-256; None when it could not be read.
    sha256: str | None

    def digest_part(self) -> list[str | None]:
        return [self.path, self.target, self.sha256]

    def describe(self) -> str:
        """One line for the user: the file, where it leads, a short fingerprint."""
        where = f" -> {self.target}" if self.target else ""
        if self.sha256 is None:
            return f"{self.path}{where} (cannot be read)"
        return f"{self.path}{where} (sha256 {self.sha256[:12]})"


def _inside(path: str, real_root: str) -> bool:
    return path == real_root or path.startswith(real_root + os.sep)


def _sha256(path: str) -> str | None:
    """The contents' hash of a regular file; None for anything else (a FIFO must never
    be opened: it would block; a directory or device has no contents to pin)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None  # swapped for something else between the two looks
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def workspace_file(word: str, base: Path, root: Path) -> WorkspaceFile | None:
    """The file ``word`` names, relative to ``base`` (or absolute), when the repository
    can reach it: written inside the workspace, or resolving there. None for anything else
    (a program of the user's, a directory, a missing file, a FIFO)."""
    if not word or "\x00" in word or word.startswith("-"):
        return None
    real_root = os.path.realpath(root)
    joined = os.path.join(os.path.realpath(base), os.path.expanduser(word))
    # Resolved as the kernel will (``link/..`` is the parent of the link's target), and
    # written as a person reads it; either inside the workspace makes it the repository's.
    real = os.path.realpath(joined)
    written = os.path.normpath(joined)
    if not (_inside(written, real_root) or _inside(real, real_root)):
        return None
    if not os.path.isfile(real):
        return None
    shown = written if _inside(written, real_root) else real
    rel = Path(os.path.relpath(shown, real_root)).as_posix()
    target: str | None = None
    if real != shown:
        inside = _inside(real, real_root)
        target = Path(os.path.relpath(real, real_root)).as_posix() if inside else real
    return WorkspaceFile(rel, target, _sha256(real))


def option_values(word: str) -> list[str]:
    """``word`` and, for ``--opt=value``, ``value``: both may name a file."""
    found = [word]
    if word.startswith("-") and "=" in word:
        found.append(word.partition("=")[2])
    return found


def _directories(words: Sequence[str], base: Path, root: Path) -> list[Path]:
    """``base``, then the workspace directories among ``words`` (``cd tools && ./x.sh``,
    ``--directory server``): a file word may be relative to any of them."""
    real_root = os.path.realpath(root)
    found = [base]
    for word in words:
        for value in option_values(word):
            if not value or "\x00" in value or value.startswith("-"):
                continue
            candidate = os.path.realpath(os.path.join(os.path.realpath(base), value))
            inside = _inside(candidate, real_root) and os.path.isdir(candidate)
            if inside and Path(candidate) not in found:
                found.append(Path(candidate))
    return found


def files_named(words: Sequence[str], base: Path, root: Path) -> list[WorkspaceFile]:
    """The workspace files among ``words``, each once, in order; relative to ``base`` or to
    a workspace directory another word names."""
    found: dict[str, WorkspaceFile] = {}
    for directory in _directories(words, base, root):
        for word in words:
            for value in option_values(word):
                hit = workspace_file(value, directory, root)
                if hit is not None and hit.path not in found:
                    found[hit.path] = hit
    return list(found.values())


def which(name: str, search: str, base: Path) -> str | None:
    """Where ``name`` is found on ``search`` (a PATH), relative entries taken from
    ``base`` (where the program starts): as the program will be found."""
    for entry in search.split(os.pathsep):
        candidate = os.path.join(base, entry or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


#: Control characters, and the invisible and bidirectional ones that can make a line read
#: differently from what runs (a newline that pushes the rest out of sight, a right-to-left
#: override that reverses an argument).
_HIDDEN = re.compile(
    "[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff]"
)


def visible(text: str) -> str:
    """``text`` as written, with every character that could hide part of it as ``\\uXXXX``."""
    return _HIDDEN.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
