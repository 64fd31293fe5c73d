"""The inline review book: which hunks belong to which run, what the model is told and when."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp

from agentls.agent.session_entries import ApprovalDecision
from agentls.agent.sessions import SessionStore
from agentls.server.inline_review import InlineReviews, client_reviews_inline
from agentls.server.protocol import ReviewDecisionParams
from agentls.server.run_handle import RunHandle

RUN = RunHandle("r1", "s1")


def _params(*hunks: dict[str, object], **extra: object) -> ReviewDecisionParams:
    return ReviewDecisionParams.model_validate(
        {"uri": "file:///w/a.py", "version": 4, "hunks": list(hunks), **extra}
    )


def _book() -> InlineReviews:
    book = InlineReviews()
    book.track(RUN, {"h1": ("a.py", 1, "+1 −1 at line 2"), "h2": ("a.py", 2, "+2 −0 at line 9")})
    assert book.sent(["h1", "h2"]) == 2
    return book


def test_the_capability_is_read_from_experimental_agentls() -> None:
    assert client_reviews_inline(
        lsp.ClientCapabilities(experimental={"agentls": {"inlineReview": True}})
    )
    assert not client_reviews_inline(lsp.ClientCapabilities(experimental={"agentls": {}}))
    assert not client_reviews_inline(lsp.ClientCapabilities())
    assert not client_reviews_inline(None)


async def test_a_live_run_reads_the_decisions_once_and_they_are_recorded(tmp_path: Path) -> None:
    book = _book()
    drain = book.run_started(RUN)
    store = SessionStore(tmp_path)
    note = await book.decide(
        _params(
            {"id": "h1", "outcome": "kept"},
            {"id": "h2", "outcome": "changedByUser", "text": "mine\n", "line": 8},
        ),
        store,
    )
    assert "a.py, hunk 1 (+1 −1 at line 2): kept." in note
    assert (
        "hunk 2 (+2 −0 at line 9): changed by the user; the region now reads (from line 9)" in note
    )
    (message,) = drain()
    assert message.startswith("The user reviewed your edits in the editor:\n- a.py, hunk 1")
    assert message.endswith("Read a file again before you edit it further.")
    assert drain() == []
    entries = [e for e in store.open("s1").entries if isinstance(e, ApprovalDecision)]
    assert [(e.decision, e.call_id, e.args["outcome"]) for e in entries] == [
        ("approve", "h1@4", "kept"),
        ("modify", "h2@4", "changedByUser"),
    ]


async def test_after_the_run_the_sessions_next_run_is_told() -> None:
    book = _book()
    book.run_started(RUN)
    book.run_ended(RUN)
    await book.decide(_params({"id": "h2", "outcome": "undone"}), None)
    (message,) = book.run_started(RunHandle("r2", "s1"))()
    assert "hunk 2 (+2 −0 at line 9): undone" in message
    assert book.run_started(RunHandle("r3", "s1"))() == []


async def test_decisions_while_the_edit_is_in_flight_are_recorded_but_not_repeated() -> None:
    book = InlineReviews()
    book.track(RUN, {"h1": ("a.py", 1, "+1 −1 at line 2")})
    drain = book.run_started(RUN)
    await book.decide(_params({"id": "h1", "outcome": "kept"}), None)
    # The client waited for the decision before answering: the edit's own outcome tells.
    assert book.sent(["h1"]) == 0
    assert drain() == []


async def test_unknown_hunks_are_ignored_and_a_save_that_changed_the_file_is_told() -> None:
    book = _book()
    drain = book.run_started(RUN)
    assert await book.decide(_params({"id": "nope", "outcome": "kept"}), None) == ""
    await book.decide(
        _params({"id": "h1", "outcome": "kept"}, saved=True, changedOnSave=True), None
    )
    (message,) = drain()
    assert "a.py was saved and saving changed it" in message


async def test_a_created_file_undone_and_deleted_is_told() -> None:
    book = _book()
    drain = book.run_started(RUN)
    await book.decide(
        _params({"id": "h1", "outcome": "undone"}, {"id": "h2", "outcome": "undone"}, deleted=True),
        None,
    )
    (message,) = drain()
    assert "a.py: you created it and the user undid all of it, so it was deleted." in message
