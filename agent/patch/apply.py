"""Apply parsed file patches to text in memory, all or nothing."""

from __future__ import annotations

from collections.abc import Callable

from agentls.agent.errors import PatchError
from agentls.agent.patch.model import FilePatch, PatchHunk
from agentls.agent.patch.parse import parse_patch
from agentls.agent.patch.seek import SeekFailure, seek

Line = tuple[str, str]  # (text, line ending: "\n", "\r\n" or "" for a missing final newline)
_SHOWN_LINES = 20


def apply_patch(patch_text: str, read: Callable[[str], str | None]) -> dict[str, str | None]:
    """Apply a patch, unified diff or V4A (told apart by ``*** Begin Patch``).

    See ``apply_unified`` and ``agent.patch.v4a.apply_v4a``: both return path → new text
    (None = delete) and write nothing, raising PatchError when any part does not apply.
    """
    from agentls.agent.patch.v4a import apply_v4a, is_v4a

    if is_v4a(patch_text):
        return apply_v4a(patch_text, read)
    return apply_unified(patch_text, read)


def apply_unified(patch_text: str, read: Callable[[str], str | None]) -> dict[str, str | None]:
    """Apply every file patch of ``patch_text`` and return path → new text (None = delete).

    ``read(path)`` gives a file's current text or None when it does not exist. Nothing is
    written: the caller writes the result only once every file has applied, so a failure in
    the last file leaves the workspace untouched. Later patches of the same file see the
    result of earlier ones.
    """
    result: dict[str, str | None] = {}

    def current(path: str) -> str | None:
        return result[path] if path in result else read(path)

    for patch in parse_patch(patch_text):
        new_text = apply_file_patch(current(patch.source), patch)
        if patch.is_rename:
            if current(patch.path) is not None:
                raise PatchError(f"cannot rename {patch.source} to {patch.path}: it exists")
            result[patch.source] = None
        result[patch.path] = new_text
    return result


def apply_file_patch(old_text: str | None, fp: FilePatch) -> str | None:
    """Apply ``fp`` to ``old_text`` (None: the file does not exist); None means deleted."""
    if fp.is_new and old_text is not None:
        raise PatchError(f"cannot create {fp.path}: it already exists")
    if old_text is None and not fp.is_new:
        if fp.is_delete:
            raise PatchError(f"cannot delete {fp.source}: it does not exist")
        raise PatchError(
            f"cannot modify {fp.source}: it does not exist (a new file needs '--- /dev/null')"
        )
    lines = split_at_newlines(old_text or "")
    eol = dominant_eol(lines, fp.crlf)
    out = _apply(lines, fp, eol)
    if not fp.is_delete:
        return "".join(text + ending for text, ending in out)
    if out:
        raise PatchError(
            f"cannot delete {fp.path}: the patch removes only some of its lines "
            f"({len(out)} would remain)"
        )
    return None


def _apply(lines: list[Line], fp: FilePatch, eol: str) -> list[Line]:
    texts = [text for text, _ in lines]
    out: list[Line] = []
    cursor = offset = 0
    for number, hunk in enumerate(fp.hunks, 1):
        stated = hunk.old_start - 1 if hunk.old_count else hunk.old_start
        try:
            at = seek(texts, hunk.old_lines, max(0, stated + offset), cursor)
        except SeekFailure as exc:
            raise PatchError(_failure(fp, number, hunk, str(exc))) from None
        # Later hunks are usually displaced by as much as this one was.
        offset = at - stated
        out.extend(lines[cursor:at])
        cursor = at
        for line in hunk.lines:
            if line.kind == " ":
                out.append(lines[cursor])  # the file's version: it may differ in whitespace
            if line.kind != "+":
                cursor += 1
            else:
                out.append((line.text, eol))
        if cursor == len(lines):
            _set_final_newline(out, hunk, lines, eol)
    out.extend(lines[cursor:])
    # A line that used to end the file without a newline may now have lines after it.
    for index in range(len(out) - 1):
        if not out[index][1]:
            out[index] = (out[index][0], eol)
    return out


def _set_final_newline(out: list[Line], hunk: PatchHunk, lines: list[Line], eol: str) -> None:
    """Give the last line the ending the hunk's no-newline markers ask for.

    Without a marker on either side the file keeps whatever it had: a model that never
    writes the marker should not add or drop the final newline by accident.
    """
    if not out:
        return
    text, ending = out[-1]
    if hunk.new_no_newline:
        ending = ""
    elif hunk.old_no_newline:
        ending = ending or eol
    elif lines and lines[-1][1] == "":
        ending = ""
    else:
        ending = ending or eol
    out[-1] = (text, ending)


def split_at_newlines(text: str) -> list[Line]:
    """``text`` as (text, ending) pairs: only ``\\n`` ends a line, as diff counts lines, so a
    lone ``\\r`` stays inside its line (LSP would end a line there: ``split_lsp_lines``)."""
    # Not str.splitlines: it also splits on \f, \x1c, \u2028 and friends, which diff does not.
    parts = text.split("\n")
    last = parts.pop()
    lines = [(part[:-1], "\r\n") if part.endswith("\r") else (part, "\n") for part in parts]
    if last:
        lines.append((last, ""))
    return lines


def dominant_eol(lines: list[Line], patch_crlf: bool) -> str:
    crlf = sum(ending == "\r\n" for _, ending in lines)
    lf = sum(ending == "\n" for _, ending in lines)
    if crlf or lf:
        return "\r\n" if crlf > lf else "\n"
    return "\r\n" if patch_crlf else "\n"


def _failure(fp: FilePatch, number: int, hunk: PatchHunk, reason: str) -> str:
    expected = hunk.old_lines
    shown = "\n".join(f"    {line}" for line in expected[:_SHOWN_LINES])
    hidden = len(expected) - _SHOWN_LINES
    more = f"\n    ... ({hidden} more)" if hidden > 0 else ""
    return (
        f"hunk {number} of {fp.path} ({hunk.title()}) does not apply: {reason}.\n"
        f"It expected these lines near line {hunk.old_start}:\n{shown}{more}"
    )
