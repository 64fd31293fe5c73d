"""Pure text-edit arithmetic for ``workspace/applyEdit``: hunks, positions, WorkspaceEdits.

Nothing here talks to a client. ``LspFileAccess`` (server/lsp_files.py) uses it to

* cut the difference between two texts into line hunks (``compute_hunks``),
* turn hunks into LSP ``TextEdit``s whose positions are counted in the negotiated
  position encoding (UTF-16 code units unless the client chose otherwise),
* build the ``WorkspaceEdit`` (versioned ``TextDocumentEdit``, ``CreateFile``,
  ``DeleteFile``, change annotations that ask for confirmation), and
* tell, from the text a document holds after the edit, which hunks the user kept.

Lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as LSP defines them (not at the
other separators ``str.splitlines`` knows).
"""

from __future__ import annotations

import contextvars
import difflib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from lsprotocol import types as lsp
from pygls.workspace import PositionCodec

from agentls.agent.protected.edits import protected_targets

Encoding = Literal["utf-8", "utf-16", "utf-32"]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lsp_lines(text: str) -> list[str]:
    """Lines of ``text`` with their terminators; a last line without one is kept.

    A lone ``\\r`` ends a line here, as in LSP positions; the patch engine's
    ``split_at_newlines`` does not, as diff does not."""
    return _LINE.findall(text)


def _codec(encoding: Encoding) -> PositionCodec:
    return PositionCodec(lsp.PositionEncodingKind(encoding))


def units(text: str, encoding: Encoding = "utf-16") -> int:
    """Length of ``text`` in the code units of ``encoding``."""
    return int(_codec(encoding).client_num_units(text))


def normalize_encoding(value: object) -> Encoding:
    """The encoding a pygls workspace negotiated (``PositionEncodingKind`` or str)."""
    raw = getattr(value, "value", value)
    if raw == "utf-8":
        return "utf-8"
    if raw == "utf-32":
        return "utf-32"
    return "utf-16"


def position_at(text: str, offset: int, encoding: Encoding = "utf-16") -> lsp.Position:
    """The LSP position of character ``offset`` (a Python str index) in ``text``."""
    lines = split_lsp_lines(text)
    start = 0
    for line, chunk in enumerate(lines):
        end = start + len(chunk)
        if offset < end or (offset == end and not chunk.endswith(("\n", "\r"))):
            column = min(offset - start, len(chunk.rstrip("\r\n")))
            point = lsp.Position(line=line, character=column)
            return _codec(encoding).position_to_client_units(lines, point)
        start = end
    return lsp.Position(line=len(lines), character=0)


def offset_at(text: str, position: lsp.Position, encoding: Encoding = "utf-16") -> int:
    """The str index of an LSP ``position`` in ``text`` (the inverse of ``position_at``);
    past the end of a line it clamps to the line's end, past the last line to the text's."""
    lines = split_lsp_lines(text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    body = lines[position.line].rstrip("\r\n")
    codec = _codec(encoding)
    # pygls clamps a column past the line's end to one unit short of it: clamp to the end.
    character = min(position.character, codec.client_num_units(body))
    point = codec.position_from_client_units([body], lsp.Position(line=0, character=character))
    return start + point.character


def apply_text_edits(text: str, edits: Sequence[Any], encoding: Encoding = "utf-16") -> str:
    """``text`` after the LSP ``TextEdit``s (or ``AnnotatedTextEdit``s) of one document,
    as an editor applies them: all ranges refer to the original text."""

    def start(edit: Any) -> tuple[int, int]:
        return (edit.range.start.line, edit.range.start.character)

    for edit in sorted(edits, key=start, reverse=True):
        begin = offset_at(text, edit.range.start, encoding)
        end = offset_at(text, edit.range.end, encoding)
        text = text[:begin] + edit.new_text + text[end:]
    return text


@dataclass(frozen=True)
class TextEditHunk:
    """One changed run of lines: ``old_text`` (at ``start:end`` of the old text) → ``new_text``,
    sent as one LSP TextEdit (a parsed ``@@`` block of a patch is ``PatchHunk``).

    ``index`` is 1-based; ``old_line`` is the 0-based first old line and ``new_line`` the
    0-based first line in the new text.
    """

    index: int
    start: int
    end: int
    old_text: str
    new_text: str
    old_line: int
    new_line: int
    added: int
    removed: int

    def summary(self) -> str:
        """Short human description: ``+3 −1 at line 10``."""
        return f"+{self.added} −{self.removed} at line {self.old_line + 1}"


def compute_hunks(old: str, new: str) -> list[TextEditHunk]:
    """Minimal line hunks turning ``old`` into ``new`` (difflib on lines, no junk heuristic)."""
    a = split_lsp_lines(old)
    b = split_lsp_lines(new)
    a_starts = [0]
    for line in a:
        a_starts.append(a_starts[-1] + len(line))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    hunks: list[TextEditHunk] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        hunks.append(
            TextEditHunk(
                index=len(hunks) + 1,
                start=a_starts[i1],
                end=a_starts[i2],
                old_text="".join(a[i1:i2]),
                new_text="".join(b[j1:j2]),
                old_line=i1,
                new_line=j1,
                added=j2 - j1,
                removed=i2 - i1,
            )
        )
    return hunks


def apply_hunks(
    old: str, hunks: Sequence[TextEditHunk], keep: Collection[int] | None = None
) -> str:
    """``old`` with the hunks whose index is in ``keep`` applied (all when ``keep`` is None)."""
    out: list[str] = []
    pos = 0
    for hunk in hunks:
        out.append(old[pos : hunk.start])
        out.append(hunk.new_text if keep is None or hunk.index in keep else hunk.old_text)
        pos = hunk.end
    out.append(old[pos:])
    return "".join(out)


def kept_hunks(old: str, hunks: Sequence[TextEditHunk], after: str) -> list[int] | None:
    """Which hunks (1-based indexes) turn ``old`` into ``after``; None when no subset does.

    The text between hunks is fixed, so ``after`` must read: gap, (old or new text of
    hunk 1), gap, ... Each position reachable after hunk k is tracked with the
    choices that led there; when both choices fit, both survive until a later gap
    decides. Among several explanations the one keeping most hunks wins.
    """
    gaps: list[str] = []
    pos = 0
    for hunk in hunks:
        gaps.append(old[pos : hunk.start])
        pos = hunk.end
    tail = old[pos:]
    # reachable: position in ``after`` -> kept indexes so far
    reachable: dict[int, tuple[int, ...]] = {0: ()}
    for hunk, gap in zip(hunks, gaps, strict=True):
        nxt: dict[int, tuple[int, ...]] = {}
        for at, kept in reachable.items():
            if not after.startswith(gap, at):
                continue
            at += len(gap)
            for text, choice in ((hunk.new_text, (*kept, hunk.index)), (hunk.old_text, kept)):
                if after.startswith(text, at):
                    end = at + len(text)
                    if end not in nxt or len(nxt[end]) < len(choice):
                        nxt[end] = choice
        reachable = nxt
        if not reachable:
            return None
    for at, kept in reachable.items():
        if after[at:] == tail:
            return list(kept)
    return None


def text_edits(
    old: str,
    hunks: Sequence[TextEditHunk],
    encoding: Encoding = "utf-16",
    annotation_ids: Sequence[str] | None = None,
) -> list[lsp.TextEdit | lsp.AnnotatedTextEdit]:
    """One TextEdit per hunk (AnnotatedTextEdit when ``annotation_ids`` gives one per hunk)."""
    edits: list[lsp.TextEdit | lsp.AnnotatedTextEdit] = []
    for n, hunk in enumerate(hunks):
        rng = lsp.Range(
            start=position_at(old, hunk.start, encoding),
            end=position_at(old, hunk.end, encoding),
        )
        if annotation_ids is not None:
            edits.append(
                lsp.AnnotatedTextEdit(
                    range=rng, new_text=hunk.new_text, annotation_id=annotation_ids[n]
                )
            )
        else:
            edits.append(lsp.TextEdit(range=rng, new_text=hunk.new_text))
    return edits


FileOp = Literal["edit", "create", "delete"]


@dataclass
class FilePlan:
    """What one file contributes to a WorkspaceEdit."""

    path: str  # workspace-relative, for labels
    uri: str
    op: FileOp
    old_text: str  # "" for a new file
    new_text: str | None  # None for a deletion
    version: int | None = None  # the open document's version
    hunks: list[TextEditHunk] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks)

    @property
    def removed(self) -> int:
        if self.op == "delete":
            return len(split_lsp_lines(self.old_text))
        return sum(h.removed for h in self.hunks)


def plan_file(
    path: str, uri: str, old_text: str | None, new_text: str | None, version: int | None
) -> FilePlan:
    """The plan for turning ``old_text`` (None: no file) into ``new_text`` (None: delete)."""
    if new_text is None:
        return FilePlan(path, uri, "delete", old_text or "", None, version)
    if old_text is None:
        return FilePlan(path, uri, "create", "", new_text, None, compute_hunks("", new_text))
    return FilePlan(
        path, uri, "edit", old_text, new_text, version, compute_hunks(old_text, new_text)
    )


#: The subagent whose edit is being sent (empty: the run's own agent). The approver sets it
#: around the file access's ``apply``, whose signature knows nothing of who asks.
EDIT_AUTHOR: contextvars.ContextVar[str] = contextvars.ContextVar("agentls_edit_author", default="")


def edit_author() -> str:
    """Who an edit's label names: ``agent``, or ``subagent explore`` for a subagent's."""
    subagent = EDIT_AUTHOR.get()
    return f"subagent {subagent}" if subagent else "agent"


def label_for(plan: FilePlan) -> str:
    """Annotation label: ``agent: edit src/app.py`` / ``agent: create …`` / ``agent: delete …``
    (``subagent explore: edit …`` for a subagent's), with why when the file is protected
    (``… (protected: .mcp.json: it declares …)``)."""
    reasons = protected_targets([plan.path])
    note = f" (protected: {reasons[0]})" if reasons else ""
    return f"{edit_author()}: {plan.op} {plan.path}{note}"


@dataclass(frozen=True)
class EditOptions:
    """How to shape a WorkspaceEdit for what the client declared."""

    encoding: Encoding = "utf-16"
    document_changes: bool = True  # else the plain ``changes`` map (no versions, no files ops)
    create_files: bool = True  # resourceOperations has "create"
    annotate: bool = False  # annotations with needsConfirmation
    annotation_prefix: str = "agentls"


def annotation_id(prefix: str, plan: FilePlan, key: str) -> str:
    """The change annotation id of one hunk (``key``: its index) or of a file operation."""
    return f"{prefix}:{plan.op}:{plan.path}:{key}"


def build_workspace_edit(plans: Sequence[FilePlan], options: EditOptions) -> lsp.WorkspaceEdit:
    """One WorkspaceEdit for all plans; with ``annotate`` every hunk gets its own annotation.

    A new file is a ``CreateFile`` (all of them first) and an insert edit; when the
    client cannot create files the insert alone goes to the new URI (Neovim and Emacs open a new
    buffer for it). A deletion is a ``DeleteFile``; callers must not plan a deletion
    for a client without document changes.
    """
    annotations: dict[str, lsp.ChangeAnnotation] = {}

    def annotate(plan: FilePlan, key: str, description: str) -> str | None:
        if not options.annotate:
            return None
        ident = annotation_id(options.annotation_prefix, plan, key)
        annotations[ident] = lsp.ChangeAnnotation(
            label=label_for(plan), needs_confirmation=True, description=description
        )
        return ident

    if not options.document_changes:
        changes: dict[str, list[lsp.TextEdit]] = {}
        for plan in plans:
            edits = text_edits(plan.old_text, plan.hunks, options.encoding)
            changes[plan.uri] = [lsp.TextEdit(range=e.range, new_text=e.new_text) for e in edits]
        return lsp.WorkspaceEdit(changes=changes)

    # CreateFile operations go first: a client that fails on them (Neovim 0.7 declares
    # "create" but cannot do it) then fails before any text was changed.
    creates: list[lsp.TextDocumentEdit | lsp.CreateFile | lsp.RenameFile | lsp.DeleteFile] = []
    document_changes: list[
        lsp.TextDocumentEdit | lsp.CreateFile | lsp.RenameFile | lsp.DeleteFile
    ] = []
    for plan in plans:
        if plan.op == "delete":
            ident = annotate(plan, "file", f"delete {plan.path} ({plan.removed} lines)")
            document_changes.append(
                lsp.DeleteFile(
                    uri=plan.uri,
                    options=lsp.DeleteFileOptions(ignore_if_not_exists=True),
                    annotation_id=ident,
                )
            )
            continue
        if plan.op == "create" and options.create_files:
            ident = annotate(plan, "file", f"create {plan.path} ({plan.added} lines)")
            creates.append(
                lsp.CreateFile(
                    uri=plan.uri,
                    options=lsp.CreateFileOptions(overwrite=False, ignore_if_exists=False),
                    annotation_id=ident,
                )
            )
        ids: list[str] | None = None
        if options.annotate:
            ids = []
            for hunk in plan.hunks:
                ident = annotate(plan, str(hunk.index), f"hunk {hunk.index}: {hunk.summary()}")
                assert ident is not None
                ids.append(ident)
        document_changes.append(
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(
                    uri=plan.uri, version=plan.version if plan.op == "edit" else None
                ),
                edits=list(text_edits(plan.old_text, plan.hunks, options.encoding, ids)),
            )
        )
    return lsp.WorkspaceEdit(
        document_changes=creates + document_changes,
        change_annotations=annotations or None,
    )
