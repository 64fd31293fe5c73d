"""Hunks, positions and kept-hunk detection of server/edits.py."""

from __future__ import annotations

import itertools

import pytest
from lsprotocol import types as lsp

from agentls.server.edits import (
    EditOptions,
    Encoding,
    TextEditHunk,
    apply_hunks,
    apply_text_edits,
    build_workspace_edit,
    compute_hunks,
    kept_hunks,
    offset_at,
    plan_file,
    position_at,
    split_lsp_lines,
    text_edits,
    units,
)


def apply_lsp_edits(old: str, edits: list[lsp.TextEdit | lsp.AnnotatedTextEdit]) -> str:
    """Apply TextEdits (UTF-16 positions) to ``old`` the way an editor does."""
    lines = split_lsp_lines(old)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos: lsp.Position) -> int:
        if pos.line >= len(lines):
            return len(old)
        line = lines[pos.line]
        count = 0
        for i, ch in enumerate(line):
            if count >= pos.character:
                return starts[pos.line] + i
            count += units(ch)
        return starts[pos.line] + len(line.rstrip("\r\n"))

    out = old
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))[::-1]:
        out = out[: offset(edit.range.start)] + edit.new_text + out[offset(edit.range.end) :]
    return out


CASES = [
    pytest.param("a\nb\nc\n", "a\nX\nb\nc\n", id="insert"),
    pytest.param("a\nb\nc\n", "a\nc\n", id="delete"),
    pytest.param("a\nb\nc\n", "a\nB\nc\n", id="replace"),
    pytest.param("1\n2\n3\n4\n5\n6\n7\n", "0\n1\n2\nthree\n4\n6\n7\n8\n", id="several"),
    pytest.param("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", id="crlf"),
    pytest.param("a\nb", "a\nB", id="no-final-newline"),
    pytest.param("a\nb", "a\nb\n", id="add-final-newline"),
    pytest.param("a\nb\n", "a\nb\nc", id="append-no-newline"),
    pytest.param("", "new\nfile\n", id="from-empty"),
    pytest.param("gone\n", "", id="to-empty"),
    pytest.param("x😀y\nz\n", "x😀y\nZ😀\n", id="astral"),
    pytest.param("𝔘\ré\rz", "𝔘\ré!\rz", id="lone-cr"),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_hunks_and_edits_round_trip(old: str, new: str) -> None:
    hunks = compute_hunks(old, new)
    assert apply_hunks(old, hunks) == new
    assert apply_hunks(old, hunks, keep=()) == old
    assert apply_lsp_edits(old, text_edits(old, hunks)) == new


def test_hunks_are_minimal() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 10\n", "line ten\n").replace("line 90\n", "")
    hunks = compute_hunks(old, new)
    assert [(h.old_line, h.added, h.removed) for h in hunks] == [(10, 1, 1), (90, 0, 1)]
    edits = text_edits(old, hunks)
    assert [(e.range.start.line, e.range.end.line, e.new_text) for e in edits] == [
        (10, 11, "line ten\n"),
        (90, 91, ""),
    ]
    assert [h.index for h in hunks] == [1, 2]
    assert hunks[0].summary() == "+1 −1 at line 11"


def test_identical_texts_have_no_hunks() -> None:
    assert compute_hunks("same\n", "same\n") == []


def test_insert_is_an_empty_range() -> None:
    (edit,) = text_edits("a\nb\n", compute_hunks("a\nb\n", "a\nb\nc\n"))
    assert edit.range.start == edit.range.end == lsp.Position(line=2, character=0)


def test_no_final_newline_ends_inside_the_last_line() -> None:
    (edit,) = text_edits("a\nbc", compute_hunks("a\nbc", "a\nxy"))
    assert edit.range == lsp.Range(
        start=lsp.Position(line=1, character=0), end=lsp.Position(line=1, character=2)
    )


def test_crlf_changes_keep_their_line_ends() -> None:
    old = "one\r\ntwo\r\nthree\r\n"
    hunks = compute_hunks(old, "one\r\n2\r\nthree\r\n")
    assert [(h.old_text, h.new_text) for h in hunks] == [("two\r\n", "2\r\n")]
    (edit,) = text_edits(old, hunks)
    assert (edit.range.start.line, edit.range.end.line) == (1, 2)


@pytest.mark.parametrize(
    ("encoding", "column"),
    [("utf-16", 5), ("utf-8", 10), ("utf-32", 3)],
)
def test_columns_count_code_units(encoding: Encoding, column: int) -> None:
    text = "😀é𝔘xyz"  # astral (2 UTF-16 units, 4 bytes), é (1, 2), astral (2, 4)
    assert position_at(text, 3, encoding) == lsp.Position(line=0, character=column)


def test_emoji_column_in_edit_range() -> None:
    old = "a😀b"
    new = "a😀c"
    (edit,) = text_edits(old, compute_hunks(old, new))
    # whole line replaced; the end of a line without newline is after 4 UTF-16 units
    assert edit.range.end == lsp.Position(line=0, character=4)
    (edit8,) = text_edits(old, compute_hunks(old, new), "utf-8")
    assert edit8.range.end == lsp.Position(line=0, character=6)


def test_position_past_final_newline_is_next_line() -> None:
    assert position_at("a\nb\n", 4) == lsp.Position(line=2, character=0)
    assert position_at("a\r\n", 3) == lsp.Position(line=1, character=0)
    assert position_at("", 0) == lsp.Position(line=0, character=0)


# -- kept-hunk detection ------------------------------------------------------------------
OLD = "".join(f"line {i}\n" for i in range(12))
NEW = OLD.replace("line 1\n", "one\n").replace("line 5\n", "five\nFIVE\n").replace("line 9\n", "")


def three_hunks() -> list[TextEditHunk]:
    hunks = compute_hunks(OLD, NEW)
    assert len(hunks) == 3
    return hunks


def test_all_hunks_kept() -> None:
    assert kept_hunks(OLD, three_hunks(), NEW) == [1, 2, 3]


def test_no_hunk_kept() -> None:
    assert kept_hunks(OLD, three_hunks(), OLD) == []


@pytest.mark.parametrize(
    "keep", [set(c) for n in range(4) for c in itertools.combinations([1, 2, 3], n)]
)
def test_every_subset_is_recognised(keep: set[int]) -> None:
    hunks = three_hunks()
    assert kept_hunks(OLD, hunks, apply_hunks(OLD, hunks, keep)) == sorted(keep)


def test_unrelated_text_matches_no_subset() -> None:
    assert kept_hunks(OLD, three_hunks(), OLD + "typed by the user\n") is None
    assert kept_hunks(OLD, three_hunks(), "") is None


def test_ambiguous_prefix_hunks_are_resolved_by_the_gaps() -> None:
    old = "a\na\nb\n"
    new = "a\nb\n"  # one deleted "a": either choice has to agree with the text after it
    hunks = compute_hunks(old, new)
    assert kept_hunks(old, hunks, new) == [h.index for h in hunks]
    assert kept_hunks(old, hunks, old) == []


# -- WorkspaceEdit ------------------------------------------------------------------------
def test_workspace_edit_annotates_every_hunk() -> None:
    plan = plan_file("src/app.py", "file:///w/src/app.py", OLD, NEW, 7)
    wedit = build_workspace_edit([plan], EditOptions(annotate=True, annotation_prefix="p"))
    assert wedit.document_changes is not None
    (doc_edit,) = wedit.document_changes
    assert isinstance(doc_edit, lsp.TextDocumentEdit)
    assert doc_edit.text_document.version == 7
    ids = [e.annotation_id for e in doc_edit.edits if isinstance(e, lsp.AnnotatedTextEdit)]
    assert len(ids) == 3 and len(set(ids)) == 3
    assert wedit.change_annotations is not None
    for ident in ids:
        note = wedit.change_annotations[ident]
        assert note.needs_confirmation is True
        assert note.label == "agent: edit src/app.py"
        assert note.description and note.description.startswith("hunk ")


def test_workspace_edit_plain_has_no_annotations() -> None:
    plan = plan_file("a.py", "file:///w/a.py", OLD, NEW, None)
    wedit = build_workspace_edit([plan], EditOptions())
    assert wedit.change_annotations is None
    assert wedit.document_changes is not None
    (doc_edit,) = wedit.document_changes
    assert isinstance(doc_edit, lsp.TextDocumentEdit)
    assert doc_edit.text_document.version is None
    assert all(type(e) is lsp.TextEdit for e in doc_edit.edits)


def test_create_and_delete() -> None:
    create = plan_file("new.py", "file:///w/new.py", None, "x = 1\n", None)
    delete = plan_file("old.py", "file:///w/old.py", "y\n", None, 3)
    wedit = build_workspace_edit([create, delete], EditOptions(annotate=True))
    assert wedit.document_changes is not None
    kinds = [type(c).__name__ for c in wedit.document_changes]
    assert kinds == ["CreateFile", "TextDocumentEdit", "DeleteFile"]
    created, insert, deleted = wedit.document_changes
    assert isinstance(created, lsp.CreateFile) and created.annotation_id
    assert isinstance(insert, lsp.TextDocumentEdit)
    assert [getattr(e, "new_text", None) for e in insert.edits] == ["x = 1\n"]
    assert isinstance(deleted, lsp.DeleteFile) and deleted.annotation_id
    assert wedit.change_annotations is not None
    labels = {n.label for n in wedit.change_annotations.values()}
    assert labels == {"agent: create new.py", "agent: delete old.py"}


def test_create_without_resource_operations_is_a_plain_insert() -> None:
    create = plan_file("new.py", "file:///w/new.py", None, "x = 1\n", None)
    wedit = build_workspace_edit([create], EditOptions(create_files=False))
    assert wedit.document_changes is not None
    assert [type(c).__name__ for c in wedit.document_changes] == ["TextDocumentEdit"]


def test_changes_map_for_clients_without_document_changes() -> None:
    plan = plan_file("a.py", "file:///w/a.py", OLD, NEW, 4)
    wedit = build_workspace_edit([plan], EditOptions(document_changes=False))
    assert wedit.document_changes is None
    assert wedit.changes is not None
    assert apply_lsp_edits(OLD, list(wedit.changes["file:///w/a.py"])) == NEW


@pytest.mark.parametrize(
    "text",
    ["", "a\nb\n", "no newline", "cr\r\nlf\n", "emoji 😀 x\nünï\n", "x\r\ry\n"],
)
def test_offset_at_inverts_position_at(text: str) -> None:
    for offset in range(len(text) + 1):
        position = position_at(text, offset)
        back = offset_at(text, position)
        # Exact, except an offset inside a line break, which maps to that line's end.
        assert back == offset or (back < offset and text[back:offset].strip("\r\n") == "")
        assert position_at(text, back) == position


def test_apply_text_edits_uses_original_ranges() -> None:
    text = "one\ntwo 😀 x\nthree\n"
    edits = [
        lsp.TextEdit(
            range=lsp.Range(
                start=lsp.Position(line=1, character=7), end=lsp.Position(line=1, character=8)
            ),
            new_text="y",
        ),
        lsp.TextEdit(
            range=lsp.Range(
                start=lsp.Position(line=0, character=0), end=lsp.Position(line=1, character=0)
            ),
            new_text="",
        ),
    ]
    assert apply_text_edits(text, edits) == "two 😀 y\nthree\n"
