"""OpenAI's V4A patch format: the ``apply_patch`` patches GPT-4.1 and the GPT-5 family write.

Grammar (``EOL`` is ``\\n``; a ``\\r`` before it is dropped and remembered for CRLF)::

    patch       = { junk } , "*** Begin Patch" , EOL , file-op , { file-op } ,
                  "*** End Patch" , [ EOL ] , { junk } ;
    file-op     = add | delete | update ;
    add         = "*** Add File: " , path , EOL , { "+" , text , EOL } ;
    delete      = "*** Delete File: " , path , EOL ;
    update      = "*** Update File: " , path , EOL , [ "*** Move to: " , path , EOL ] ,
                  { chunk } ;
    chunk       = { anchor } , change , { change } , [ "*** End of File" , EOL ] ;
    anchor      = "@@" , [ " " , text ] , EOL ;
    change      = ( " " | "-" | "+" ) , text , EOL
                | EOL ;                          (* an empty context line *)

There are no line numbers. A chunk is found by its anchors and its old lines (context and
``-`` lines), searched after the previous chunk of the same file:

* each ``@@ <line>`` anchor is the first line at or after the search position that equals
  ``<line>``; consecutive anchors narrow down (``@@ class A`` then ``@@ def f``);
* the old lines must then follow at or after the last anchor; ``*** End of File`` says they
  end the file;
* a chunk with no old lines inserts right after its anchors, or at the end of the file;
* lines compare exactly, else ignoring trailing whitespace, else ignoring surrounding
  whitespace, else with Unicode dashes, quotes and spaces folded to ASCII: the first level
  that finds the lines anywhere decides;
* a chunk with neither anchors nor an earlier chunk before it must match in one place only
  (several places are an error asking for an anchor or more context).

Context lines keep the file's own text (whitespace, line endings); the file keeps its
final newline or lack of one. A move deletes the old name. Unlike the reference applier,
nothing is written unless every file op applies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agentls.agent.errors import PatchError
from agentls.agent.patch.apply import Line, dominant_eol, split_at_newlines
from agentls.agent.patch.seek import LEVELS, Normalise, matches, near_miss

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"

_SHOWN_LINES = 12

_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\uff07", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\uff02", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000",
            " ",
        ),
    }
)


def fold_punctuation(line: str) -> str:
    """``line`` trimmed, with typographic dashes, quotes and spaces as their ASCII kin."""
    return line.translate(_PUNCTUATION).strip()


V4A_LEVELS: tuple[tuple[str, Normalise], ...] = (
    *LEVELS,
    ("with Unicode punctuation folded", fold_punctuation),
)

ChangeKind = Literal[" ", "-", "+"]


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    text: str


@dataclass
class Chunk:
    """One ``@@`` section of an Update File; ``line_no`` is its first line in the patch."""

    anchors: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    end_of_file: bool = False
    line_no: int = 0

    @property
    def old_lines(self) -> list[str]:
        return [c.text for c in self.changes if c.kind != "+"]


@dataclass
class FileOp:
    """One ``*** Add/Delete/Update File`` section."""

    kind: Literal["add", "delete", "update"]
    path: str
    line_no: int
    move_to: str | None = None
    added: list[str] = field(default_factory=list)  # an Add File's lines
    chunks: list[Chunk] = field(default_factory=list)
    crlf: bool = False  # every line of an Add File ended in CRLF

    @property
    def paths(self) -> list[str]:
        """Every file this op reads or writes."""
        return [self.path] + ([self.move_to] if self.move_to else [])

    def label(self) -> str:
        verb = {"add": "Add File", "delete": "Delete File", "update": "Update File"}[self.kind]
        return f"{verb}: {self.path} (patch line {self.line_no})"


def is_v4a(text: str) -> bool:
    """Whether ``text`` is a V4A patch (it has a ``*** Begin Patch`` line)."""
    # At the start of a line: in a unified diff the same words would follow a prefix.
    return any(line.rstrip() == BEGIN for line in text.split("\n"))


# ---------------------------------------------------------------- parse


def parse_v4a(text: str) -> list[FileOp]:
    """The file ops of a V4A patch; PatchError names the patch line that is wrong."""
    raw = text.split("\n")
    crs = [line.endswith("\r") for line in raw]
    lines = [line.removesuffix("\r") for line in raw]
    start = next((i for i, line in enumerate(lines) if line.rstrip() == BEGIN), None)
    if start is None:
        raise PatchError(f"a V4A patch starts with a line '{BEGIN}'")
    i = start + 1
    ops: list[FileOp] = []
    while True:
        if i >= len(lines):
            raise PatchError(
                f"the patch has no '{END}' line: it may have been cut short, so none of it "
                "was applied"
            )
        line = lines[i]
        number = i + 1
        if line.rstrip() == END:
            break
        if line.startswith(ADD):
            op = FileOp("add", _path(line, ADD, number), number)
            i += 1
            body_crs: list[bool] = []
            while i < len(lines) and lines[i].startswith("+"):
                op.added.append(lines[i][1:])
                body_crs.append(crs[i])
                i += 1
            op.crlf = bool(body_crs) and all(body_crs)
            ops.append(op)
        elif line.startswith(DELETE):
            ops.append(FileOp("delete", _path(line, DELETE, number), number))
            i += 1
        elif line.startswith(UPDATE):
            op = FileOp("update", _path(line, UPDATE, number), number)
            i += 1
            if i < len(lines) and lines[i].startswith(MOVE):
                op.move_to = _path(lines[i], MOVE, i + 1)
                i += 1
            i = _chunks(lines, i, op)
            if not op.chunks and op.move_to is None:
                raise PatchError(f"{op.label()} has no changes")
            ops.append(op)
        elif not line.strip():
            i += 1  # blank lines between file ops
        else:
            raise PatchError(
                f"patch line {number}: expected '{ADD.strip()}', '{DELETE.strip()}', "
                f"'{UPDATE.strip()}' or '{END}', got {line!r}"
            )
    if not ops:
        raise PatchError("the patch changes no file (nothing between Begin Patch and End Patch)")
    return ops


def _path(line: str, prefix: str, number: int) -> str:
    path = line[len(prefix) :].strip()
    if not path:
        raise PatchError(f"patch line {number}: '{prefix.strip()}' names no file")
    return path


def _chunks(lines: list[str], i: int, op: FileOp) -> int:
    """Read an Update File's chunks from line index ``i``; return where the next op starts."""
    chunk: Chunk | None = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("***") and line.rstrip() != END_OF_FILE:
            break  # the next file op, or End Patch
        if line.rstrip() == END_OF_FILE:
            if chunk is None or not chunk.changes:
                raise PatchError(f"patch line {i + 1}: '{END_OF_FILE}' follows no change")
            chunk.end_of_file = True
            chunk = None
        elif line.startswith("@@"):
            if chunk is None or chunk.changes:
                chunk = Chunk(line_no=i + 1)
                op.chunks.append(chunk)
            anchor = line[2:].strip()
            if anchor:
                chunk.anchors.append(line[3:] if line.startswith("@@ ") else line[2:])
        elif line == "" or line[0] in " -+":
            if chunk is None:
                chunk = Chunk(line_no=i + 1)
                op.chunks.append(chunk)
            kind: ChangeKind = line[0] if line else " "  # type: ignore[assignment]
            chunk.changes.append(Change(kind, line[1:]))
        else:
            raise PatchError(
                f"patch line {i + 1} in {op.label()}: a change line starts with ' ', '-' or "
                f"'+' (or '@@' for an anchor), got {line!r}"
            )
        i += 1
    if chunk is not None and not chunk.changes:
        if chunk.anchors:
            raise PatchError(
                f"patch line {chunk.line_no} in {op.label()}: the anchor is followed by no change"
            )
        op.chunks.remove(chunk)
    return i


# ---------------------------------------------------------------- apply


def apply_v4a(patch_text: str, read: Callable[[str], str | None]) -> dict[str, str | None]:
    """Apply every file op and return path → new text (None = delete), writing nothing.

    ``read(path)`` gives a file's text or None when it does not exist. Later ops on the
    same file see the result of earlier ones; any failure raises PatchError and the
    caller writes nothing.
    """
    result: dict[str, str | None] = {}

    def current(path: str) -> str | None:
        return result[path] if path in result else read(path)

    for op in parse_v4a(patch_text):
        old = current(op.path)
        if op.kind == "add":
            if old is not None:
                raise PatchError(
                    f"{op.label()}: {op.path} already exists (use '{UPDATE.strip()}' to change it)"
                )
            eol = "\r\n" if op.crlf else "\n"
            result[op.path] = "".join(line + eol for line in op.added)
            continue
        if old is None:
            raise PatchError(f"{op.label()}: {op.path} does not exist")
        if op.kind == "delete":
            result[op.path] = None
            continue
        new = update_text(old, op)
        if op.move_to is not None and op.move_to != op.path:
            if current(op.move_to) is not None:
                raise PatchError(f"{op.label()}: cannot move to {op.move_to}: it already exists")
            result[op.path] = None
            result[op.move_to] = new
        else:
            result[op.path] = new
    return result


def update_text(old_text: str, op: FileOp) -> str:
    """``old_text`` with the chunks of an Update File applied."""
    lines = split_at_newlines(old_text)
    texts = [text for text, _ in lines]
    eol = dominant_eol(lines, False)
    out: list[Line] = []
    cursor = 0  # lines before it are copied or consumed
    for number, chunk in enumerate(op.chunks, 1):
        try:
            start, changes = _locate(texts, chunk, cursor)
        except PatchError as exc:
            raise PatchError(
                f"{op.label()}, chunk {number} (patch line {chunk.line_no}): {exc}"
            ) from None
        out.extend(lines[cursor:start])
        cursor = start
        for change in changes:
            if change.kind == " ":
                out.append(lines[cursor])  # the file's own text: it may differ in whitespace
                cursor += 1
            elif change.kind == "-":
                cursor += 1
            else:
                out.append((change.text, eol))
    out.extend(lines[cursor:])
    ends_without_newline = bool(lines) and lines[-1][1] == ""
    fixed = [(text, ending or eol) for text, ending in out]
    if fixed and ends_without_newline:
        fixed[-1] = (fixed[-1][0], "")
    return "".join(text + ending for text, ending in fixed)


def _locate(texts: Sequence[str], chunk: Chunk, cursor: int) -> tuple[int, list[Change]]:
    """Where the chunk's old lines start (at or after ``cursor``) and the changes to apply."""
    floor = cursor
    for anchor in chunk.anchors:
        floor = _find_anchor(texts, anchor, floor) + 1
    old = chunk.old_lines
    if not old:
        return (floor if chunk.anchors else len(texts)), chunk.changes
    unique = not chunk.anchors and cursor == 0
    try:
        return _find_lines(texts, old, floor, chunk.end_of_file, unique), chunk.changes
    except PatchError:
        # Models often end a chunk with an empty context line standing for the final
        # newline; without it the lines may well be there.
        last = chunk.changes[-1]
        if last.kind == " " and not last.text.strip() and len(old) > 1:
            trimmed = chunk.changes[:-1]
            lines = [c.text for c in trimmed if c.kind != "+"]
            try:
                return _find_lines(texts, lines, floor, chunk.end_of_file, unique), trimmed
            except PatchError:
                pass
        raise


def _find_anchor(texts: Sequence[str], anchor: str, floor: int) -> int:
    for _, normalise in V4A_LEVELS:
        wanted = normalise(anchor)
        for index in range(floor, len(texts)):
            if normalise(texts[index]) == wanted:
                return index
    where = f"after line {floor}" if floor else "in the file"
    raise PatchError(f"the anchor line '@@ {anchor}' was not found {where}")


def _find_lines(
    texts: Sequence[str], old: Sequence[str], floor: int, end_of_file: bool, unique: bool
) -> int:
    earlier = False
    for level, normalise in V4A_LEVELS:
        found = matches(texts, old, normalise)
        if end_of_file:
            found = [index for index in found if index + len(old) == len(texts)]
        usable = [index for index in found if index >= floor]
        earlier = earlier or any(index < floor for index in found)
        if not usable:
            continue
        if unique and len(usable) > 1:
            where = ", ".join(str(index + 1) for index in usable[:8])
            raise PatchError(
                f"its lines match in {len(usable)} places ({level}: lines {where}); add an "
                "'@@ <line>' anchor naming the enclosing function or class, or more context"
            )
        return usable[0]
    shown = "\n".join(f"    {line}" for line in old[:_SHOWN_LINES])
    if len(old) > _SHOWN_LINES:
        shown += f"\n    ... ({len(old) - _SHOWN_LINES} more)"
    if earlier:
        reason = (
            f"the lines only occur before line {floor + 1}, where the previous chunk or "
            "anchor ends; chunks must be in file order"
        )
    elif end_of_file:
        reason = "the lines do not end the file ('*** End of File' says they should)"
    else:
        reason = near_miss(texts, old)
    raise PatchError(f"{reason}.\nIt expected these lines:\n{shown}")
