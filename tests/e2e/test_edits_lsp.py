"""LspFileAccess over real LSP stdio: a pygls harness server and pytest-lsp clients.

The harness (tests/e2e/edits_server.py) calls LspFileAccess for a ``test/apply``
request; the client side (edits_helpers.FakeEditor) answers ``workspace/applyEdit`` and
``window/showMessageRequest`` the way each test needs, like an editor would.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from edits_helpers import FakeEditor, capabilities, request, start_editor
from lsprotocol import types as lsp

OLD = "".join(f"line {i}\n" for i in range(1, 11))
NEW = OLD.replace("line 2\n", "line two\n").replace("line 8\n", "line 8\nline 8.5\n")

Start = Callable[..., Awaitable[FakeEditor]]


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    editors: list[FakeEditor] = []
    (tmp_path / "app.py").write_text(OLD, encoding="utf-8")

    async def make(
        *, annotations: bool = True, show_message: bool = True, **settings: Any
    ) -> FakeEditor:
        def configure(editor: FakeEditor) -> None:
            for key, value in settings.items():
                setattr(editor, key, value)

        editor = await start_editor(
            tmp_path, capabilities(annotations=annotations, show_message=show_message), configure
        )
        editors.append(editor)
        return editor

    yield make
    for editor in editors:
        await editor.client.shutdown_session()


def outcome(result: Any) -> dict[str, Any]:
    """The EditOutcome dict (the harness sends it as JSON text)."""
    decoded: dict[str, Any] = json.loads(result)
    return decoded


async def apply(editor: FakeEditor, **params: Any) -> dict[str, Any]:
    params.setdefault("path", "app.py")
    params.setdefault("confirm", True)
    return outcome(await request(editor, "test/apply", params))


async def read(editor: FakeEditor, path: str = "app.py") -> Any:
    return await request(editor, "test/read", {"path": path})


async def test_accepted_edit_is_minimal_versioned_and_annotated(start: Start) -> None:
    editor = await start()
    editor.open("app.py", version=5)
    result = await apply(editor, newText=NEW)
    assert result["status"] == "applied", result
    assert editor.text("app.py") == NEW
    (params,) = editor.edits_seen
    assert params.edit.document_changes is not None
    (doc_edit,) = params.edit.document_changes
    assert isinstance(doc_edit, lsp.TextDocumentEdit)
    assert doc_edit.text_document.version == 5
    assert len(doc_edit.edits) == 2  # two hunks, not the whole file
    notes = params.edit.change_annotations or {}
    ids = [getattr(e, "annotation_id", None) for e in doc_edit.edits]
    assert all(i in notes for i in ids)
    assert {n.label for n in notes.values()} == {"agent: edit app.py"}
    assert all(n.needs_confirmation for n in notes.values())
    assert editor.questions == []  # annotations carry the question
    assert (await read(editor)).text == NEW
    assert (editor.root / "app.py").read_text() == OLD  # the server never wrote the disk


async def test_rejected_edit_leaves_the_file_as_it_was(start: Start) -> None:
    editor = await start(mode="reject")
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == "rejected"
    assert "rejected" in result["message"]
    assert editor.text("app.py") == OLD
    assert (await read(editor)).text == OLD


async def test_partial_edit_reports_kept_and_dropped_hunks(start: Start) -> None:
    editor = await start(mode="some", keep={1})
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == "partial", result
    assert result["kept_hunks"] == {"app.py": [2]}
    assert result["dropped_hunks"] == {"app.py": [1]}
    assert "dropped hunk 1" in result["message"]
    assert editor.text("app.py") == OLD.replace("line 8\n", "line 8\nline 8.5\n")


async def test_change_arriving_after_the_answer_is_waited_for(start: Start) -> None:
    editor = await start(change_after_answer=True)
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == "applied", result


async def test_stale_edit_is_refused_before_anything_is_sent(start: Start) -> None:
    editor = await start()
    editor.open("app.py")
    editor.type_text("app.py", OLD + "typed by the user\n")
    await read(editor)  # the didChange is processed before the next request
    result = await apply(editor, newText=NEW, base=OLD)
    assert result["status"] == "stale"
    assert "read it again" in result["message"]
    assert editor.edits_seen == []


async def test_edit_not_reported_back_is_flagged_unconfirmed(start: Start) -> None:
    # The client says applied=true but never sends the new text (Neovim 0.7 when it
    # skipped an edit, or an editor whose didChange is late): the outcome says so.
    editor = await start(mode="ignore")
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == "applied"
    assert "has not sent the new text yet" in result["message"]


async def test_edit_undone_by_the_client_is_not_reported_applied(start: Start) -> None:
    editor = await start(mode="some", keep=set())
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == "failed", result
    assert "did not change" in result["message"]


@pytest.mark.parametrize(("mode", "status"), [("error", "rejected"), ("version-error", "stale")])
async def test_jsonrpc_error_answer_is_a_rejection_or_stale(
    start: Start, mode: str, status: str
) -> None:
    editor = await start(mode=mode)
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == status, result
    assert editor.text("app.py") == OLD
    # the server survived and answers the next request
    assert (await read(editor)).text == OLD


async def test_create_file(start: Start) -> None:
    editor = await start()
    result = await apply(editor, path="pkg/new.py", newText="x = 1\n")
    assert result["status"] == "applied", result
    (params,) = editor.edits_seen
    changes = params.edit.document_changes or []
    assert [type(c).__name__ for c in changes] == ["CreateFile", "TextDocumentEdit"]
    assert editor.created == [editor.uri("pkg/new.py")]
    notes = params.edit.change_annotations or {}
    assert {n.label for n in notes.values()} == {"agent: create pkg/new.py"}
    # not open in the editor: the server serves what it sent until the editor opens it
    assert (await read(editor, "pkg/new.py")).text == "x = 1\n"
    assert "not open in the editor" in result["message"]


async def test_delete_file(start: Start) -> None:
    editor = await start()
    result = await apply(editor, newText=None)
    assert result["status"] == "applied", result
    (params,) = editor.edits_seen
    changes = params.edit.document_changes or []
    assert [type(c).__name__ for c in changes] == ["DeleteFile"]
    assert editor.deleted == [editor.uri("app.py")]
    notes = params.edit.change_annotations or {}
    assert {n.label for n in notes.values()} == {"agent: delete app.py"}


@pytest.mark.parametrize(
    ("answer", "status"), [("Apply", "applied"), ("Reject", "rejected"), (None, "rejected")]
)
async def test_client_without_annotations_is_asked_first(
    start: Start, answer: str | None, status: str
) -> None:
    editor = await start(annotations=False, message_answer=answer)
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == status, result
    (question,) = editor.questions
    assert question.message == "Apply edit to app.py (+2 −1)?"
    assert [a.title for a in question.actions or []] == ["Apply", "Reject"]
    if status == "applied":
        (params,) = editor.edits_seen
        assert not params.edit.change_annotations
        assert editor.text("app.py") == NEW
    else:
        assert editor.edits_seen == []
        assert editor.text("app.py") == OLD


async def test_client_that_cannot_ask_refuses_confirm_edits(start: Start) -> None:
    editor = await start(annotations=False, show_message=False)
    editor.open("app.py")
    result = await apply(editor, newText=NEW)
    assert result["status"] == "rejected"
    assert "cannot ask" in result["message"]
    assert editor.edits_seen == [] and editor.questions == []
    # without confirmation the same client gets the edit
    result = await apply(editor, newText=NEW, confirm=False)
    assert result["status"] == "applied"


async def test_client_that_confirms_itself_gets_a_plain_edit(start: Start) -> None:
    editor = await start(annotations=False, show_message=False, mode="error")
    editor.open("app.py")
    result = await apply(editor, newText=NEW, clientConfirms=True)
    assert result["status"] == "rejected"
    assert "User cancelled server edit" in result["message"]
    (params,) = editor.edits_seen
    assert not params.edit.change_annotations


async def test_concurrent_confirm_edits_are_serialized(start: Start, tmp_path: Path) -> None:
    editor = await start(hold=0.2)
    (tmp_path / "b.py").write_text("b\n", encoding="utf-8")
    editor.open("app.py")
    editor.open("b.py")
    first, second = await asyncio.gather(
        apply(editor, newText=NEW), apply(editor, path="b.py", newText="B\n")
    )
    assert first["status"] == second["status"] == "applied"
    assert len(editor.edits_seen) == 2
    assert editor.max_in_flight == 1
    assert editor.text("b.py") == "B\n"
