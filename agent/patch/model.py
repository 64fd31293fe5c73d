"""The parsed form of a unified diff: files, hunks and hunk lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

LineKind = Literal[" ", "-", "+"]


@dataclass(frozen=True)
class HunkLine:
    """One body line of a hunk, without its prefix character and without its line ending.

    ``no_newline`` is set when ``\\ No newline at end of file`` follows the line, i.e. the
    line is the last one of its side and has no line ending there.
    """

    kind: LineKind
    text: str
    no_newline: bool = False


@dataclass
class PatchHunk:
    """One ``@@ -old_start,old_count +new_start,new_count @@`` block of a parsed patch (the
    server's minimal text edits are ``TextEditHunk``).

    ``header`` and ``line_no`` (1-based, in the patch text) exist only for error messages.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[HunkLine] = field(default_factory=list)
    header: str = ""
    line_no: int = 0

    @property
    def old_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.kind != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [line.text for line in self.lines if line.kind != "-"]

    @property
    def old_no_newline(self) -> bool:
        """The old side ends without a newline (a marker follows its last line)."""
        return _last_marked(self.lines, "+")

    @property
    def new_no_newline(self) -> bool:
        return _last_marked(self.lines, "-")

    def title(self) -> str:
        """The ``@@ ... @@`` part of the header, without git's function-name context."""
        end = self.header.find("@@", 2)
        if end > 0:
            return self.header[: end + 2]
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"


def _last_marked(lines: list[HunkLine], other_side: LineKind) -> bool:
    side = [line for line in lines if line.kind != other_side]
    return bool(side) and side[-1].no_newline


@dataclass
class FilePatch:
    """The changes to one file. A ``None`` path stands for ``/dev/null``.

    Paths are kept as the patch writes them (``a/``, ``b/`` prefixes included); ``path``
    and ``source`` give the workspace-relative names.
    """

    old_path: str | None
    new_path: str | None
    hunks: list[PatchHunk] = field(default_factory=list)
    is_rename: bool = False
    line_no: int = 0
    crlf: bool = False  # every body line ended in CRLF: a new file is written with CRLF

    @property
    def is_new(self) -> bool:
        return self.old_path is None

    @property
    def is_delete(self) -> bool:
        return self.new_path is None

    @property
    def path(self) -> str:
        """The file this patch writes (or deletes), with git's ``a/``/``b/`` prefixes removed."""
        old, new = _strip_prefixes(self.old_path, self.new_path)
        target = new if new is not None else old
        assert target is not None, "a file patch always names at least one side"
        return target

    @property
    def source(self) -> str:
        """The file this patch reads: the old name for a rename, ``path`` otherwise."""
        if self.is_rename:
            old, _ = _strip_prefixes(self.old_path, self.new_path)
            assert old is not None
            return old
        return self.path


def _strip_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    # Identical names on both sides mean a diff made without prefixes (git --no-prefix,
    # diff -u): a leading "b/" there is a real directory, so nothing is stripped.
    if old is not None and new is not None and old == new:
        return old, new
    return _strip(old, "a/"), _strip(new, "b/")


def _strip(path: str | None, prefix: str) -> str | None:
    if path is not None and path.startswith(prefix) and len(path) > len(prefix):
        return path[len(prefix) :]
    return path
