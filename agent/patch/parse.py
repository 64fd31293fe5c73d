"""Parse unified diffs (``git diff``, ``diff -u``, and what models write) into FilePatches.

Grammar (``EOL`` is ``\\n``; a ``\\r`` before it is dropped and remembered for CRLF)::

    patch       = { junk } , file-patch , { file-patch | junk } ;
    file-patch  = git-header , { extended } , [ old-header , new-header , hunk , { hunk } ]
                | old-header , new-header , hunk , { hunk } ;
    git-header  = "diff --git " , name , " " , name , EOL ;
    extended    = ( "index " | "old mode " | "new mode " | "new file mode "
                  | "deleted file mode " | "similarity index " | "rename from "
                  | "rename to " | ... ) , text , EOL ;
    old-header  = "--- " , path , [ TAB , timestamp ] , EOL ;
    new-header  = "+++ " , path , [ TAB , timestamp ] , EOL ;
    path        = "/dev/null" | name | '"' , c-escaped name , '"' ;
    hunk        = "@@ -" , range , " +" , range , " @@" , [ text ] , EOL , { body } ;
    range       = start , [ "," , count ] ;        (* count defaults to 1 *)
    body        = ( " " | "-" | "+" ) , text , EOL , [ no-newline ]
                | EOL ;                            (* context line that lost its space *)
    no-newline  = "\\" , text , EOL ;              (* "\\ No newline at end of file" *)

A hunk's body is exactly as long as its header's counts say; anything after it that is
not a header is junk (commit messages, format-patch signatures, Markdown fences) unless it
looks like one more body line, which means the counts are wrong.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agentls.agent.errors import PatchError
from agentls.agent.patch.model import FilePatch, HunkLine, LineKind, PatchHunk
from agentls.agent.patch.paths import parse_git_names, parse_header_path

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: .*)?$")
_UNSUPPORTED = ("Binary files ", "GIT binary patch", "copy from ", "copy to ")


def parse_patch(text: str) -> list[FilePatch]:
    """Parse every file patch in ``text``; raise PatchError naming the offending line."""
    return _Parser(text).parse()


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.i = 0
        self.cr_lines = 0

    def parse(self) -> list[FilePatch]:
        files: list[FilePatch] = []
        while self.i < len(self.lines):
            line = self._header_line(self.i)
            if line.startswith("diff --git "):
                files.append(self._git_file())
            elif line.startswith("--- ") and self._starts_file(self.i + 1):
                files.append(self._file(None))
            elif line.startswith("@@"):
                raise self._error(self.i, "hunk header without '--- ' and '+++ ' file headers")
            else:
                self.i += 1
        if not files:
            raise PatchError(
                "no file patch found: a unified diff needs '--- old' and '+++ new' lines "
                "followed by '@@ -start,count +start,count @@' hunks"
            )
        return files

    def _starts_file(self, index: int) -> bool:
        # A "--- " line of prose (commit messages) is junk unless a header or hunk follows;
        # "--- " right before "@@" is a file header whose "+++ " line was lost.
        return self._header_line(index).startswith(("+++ ", "@@"))

    def _header_line(self, index: int) -> str:
        return self.lines[index].rstrip("\r") if index < len(self.lines) else ""

    def _error(self, index: int, message: str) -> PatchError:
        return PatchError(f"line {index + 1}: {message}")

    def _git_file(self) -> FilePatch:
        start = self.i
        try:
            old, new = parse_git_names(self._header_line(start)[len("diff --git ") :])
        except ValueError as exc:
            raise self._error(start, str(exc)) from None
        old_path: str | None = old
        new_path: str | None = new
        is_rename = False
        self.i += 1
        while self.i < len(self.lines):
            line = self._header_line(self.i)
            if line.startswith(("--- ", "diff --git ", "@@")):
                break
            if line.startswith(_UNSUPPORTED):
                raise self._error(self.i, f"not supported (binary patch or copy): {line}")
            if line.startswith("new file mode "):
                old_path = None
            elif line.startswith("deleted file mode "):
                new_path = None
            elif line.startswith("rename from "):
                old_path, is_rename = "a/" + line[len("rename from ") :], True
            elif line.startswith("rename to "):
                new_path, is_rename = "b/" + line[len("rename to ") :], True
            self.i += 1
        if self._header_line(self.i).startswith("--- "):
            patch = self._file(start)
            patch.is_rename = is_rename and not (patch.is_new or patch.is_delete)
            return patch
        # Without ---/+++ git is describing an empty file, a pure rename or a mode change.
        return FilePatch(old_path, new_path, [], is_rename=is_rename, line_no=start + 1)

    def _file(self, git_start: int | None) -> FilePatch:
        start = self.i
        plus = self._header_line(start + 1)
        if not plus.startswith("+++ "):
            raise self._error(start + 1, f"expected '+++ new-name' after {self.lines[start]!r}")
        try:
            old_path = parse_header_path(self._header_line(start)[4:])
            new_path = parse_header_path(plus[4:])
        except ValueError as exc:
            raise self._error(start, str(exc)) from None
        if old_path is None and new_path is None:
            raise self._error(start, "both sides of the file patch are /dev/null")
        patch = FilePatch(old_path, new_path, line_no=(git_start or start) + 1)
        self.i = start + 2
        if not self._header_line(self.i).startswith("@@"):
            raise self._error(self.i, "expected an '@@ -start,count +start,count @@' hunk header")
        body_lines = self.cr_lines = 0
        while self._header_line(self.i).startswith("@@"):
            patch.hunks.append(self._hunk(patch))
            body_lines += len(patch.hunks[-1].lines)
            following = self._check_no_extra_body(patch)
            if self._header_line(following).startswith("@@"):
                self.i = following
        # The last line of a CRLF file that lacks a final newline has no CR in the patch.
        marked = sum(line.no_newline for hunk in patch.hunks for line in hunk.lines)
        patch.crlf = self.cr_lines > 0 and self.cr_lines >= body_lines - marked
        return patch

    def _hunk(self, patch: FilePatch) -> PatchHunk:
        header_index = self.i
        header = self._header_line(header_index)
        match = _HUNK_HEADER.match(header)
        if match is None:
            raise self._error(
                header_index,
                f"malformed hunk header {header!r}; expected '@@ -start,count +start,count @@'",
            )
        old_start, old_count, new_start, new_count = (
            int(group) if group is not None else 1 for group in match.groups()[:4]
        )
        hunk = PatchHunk(old_start, old_count, new_start, new_count, [], header, header_index + 1)
        name = f"hunk {len(patch.hunks) + 1} of {patch.path} ({hunk.title()})"
        if old_count == 0 and new_count == 0:
            raise self._error(header_index, f"{name} is empty")
        if patch.is_new and old_count:
            raise self._error(header_index, f"{name} has old lines but the file is new")
        if patch.is_delete and new_count:
            raise self._error(header_index, f"{name} has new lines but the file is deleted")
        self.i += 1
        old_seen = new_seen = 0
        while old_seen < old_count or new_seen < new_count:
            if self.i >= len(self.lines):
                raise self._error(self.i - 1, self._count_message(name, hunk, old_seen, new_seen))
            raw = self.lines[self.i]
            if raw.startswith("\\"):
                self._mark_no_newline(hunk, name)
                continue
            kind = raw[:1] or " "
            if kind not in " -+":
                message = self._count_message(name, hunk, old_seen, new_seen)
                raise self._error(self.i, f"{message}; {raw[:60]!r} is not a body line")
            text = raw[1:]
            self.cr_lines += text.endswith("\r")
            hunk.lines.append(HunkLine(_kind(kind), text.removesuffix("\r")))
            old_seen += kind != "+"
            new_seen += kind != "-"
            if old_seen > old_count or new_seen > new_count:
                raise self._error(self.i, self._count_message(name, hunk, old_seen, new_seen))
            self.i += 1
        while self.i < len(self.lines) and self.lines[self.i].startswith("\\"):
            self._mark_no_newline(hunk, name)
        return hunk

    def _mark_no_newline(self, hunk: PatchHunk, name: str) -> None:
        if not hunk.lines:
            raise self._error(self.i, f"'\\ No newline at end of file' before any line of {name}")
        hunk.lines[-1] = replace(hunk.lines[-1], no_newline=True)
        self.i += 1

    def _count_message(self, name: str, hunk: PatchHunk, old_seen: int, new_seen: int) -> str:
        return (
            f"{name} does not match its header: the header promises {hunk.old_count} old "
            f"and {hunk.new_count} new lines, the body has {old_seen} and {new_seen} "
            f"(wrong counts in the header, or a truncated hunk)"
        )

    def _check_no_extra_body(self, patch: FilePatch) -> int:
        """Refuse body-like lines right after a complete hunk: its counts must be too small.

        Returns the index of the next non-blank line, so blank lines between hunks pass.
        """
        index = self.i
        while index < len(self.lines) and not self.lines[index].strip():
            index += 1
        line = self._header_line(index)
        if not line[:1] or line[0] not in " -+" or line == "-- ":
            return index  # junk, or git format-patch's "-- " signature
        if line.startswith("--- ") and self._header_line(index + 1).startswith("+++ "):
            return index
        hunk = patch.hunks[-1]
        raise self._error(
            index,
            f"hunk {len(patch.hunks)} of {patch.path} ({hunk.title()}) has more lines "
            f"than its header counts ({hunk.old_count} old, {hunk.new_count} new)",
        )


def _kind(char: str) -> LineKind:
    if char == "-":
        return "-"
    return "+" if char == "+" else " "
