"""The inline review book: which hunks belong to which run, what the model is told and when."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from agentls.agent.folder.runs import RunTicket
from agentls.agent.sessions.entries import ApprovalDecision
from agentls.agent.sessions.store import SessionStore
from agentls.server.inline_review import (
    PENDING_NOTE,
    AutoSave,
    InlineReviews,
    client_reviews_inline,
    pending_note,
)
from agentls.server.protocol import ReviewAutoSaveParams, ReviewDecisionParams
from agentls.server.run_handle import RunHandle

RUN = RunHandle(RunTicket("r1", "s1"))


def _params(*hunks: dict[str, object], **extra: object) -> ReviewDecisionParams:
    return ReviewDecisionParams.model_validate(
        {"uri": "file:///w/a.py", "version": 4, "hunks": list(hunks), **extra}
    )


def _book(told: list[dict[str, object]] | None = None) -> InlineReviews:
    book = InlineReviews(notify=(lambda _m, p: told.append(p)) if told is not None else None)
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
    (message,) = book.run_started(RunHandle(RunTicket("r2", "s1")))()
    assert "hunk 2 (+2 −0 at line 9): undone" in message
    assert book.run_started(RunHandle(RunTicket("r3", "s1")))() == []


async def test_decisions_while_the_edit_is_in_flight_are_recorded_but_not_repeated() -> None:
    book = InlineReviews()
    book.track(RUN, {"h1": ("a.py", 1, "+1 −1 at line 2")})
    drain = book.run_started(RUN)
    await book.decide(_params({"id": "h1", "outcome": "kept"}), None)
    # The client waited for the decision before answering: the edit's own outcome tells.
    assert book.sent(["h1"]) == 0
    assert drain() == []
    # Kept again later: nothing new; undone later: news.
    await book.decide(_params({"id": "h1", "outcome": "kept"}), None)
    assert drain() == []
    await book.decide(_params({"id": "h1", "outcome": "undone"}), None)
    assert "hunk 1 (+1 −1 at line 2): undone" in drain()[0]


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


async def test_one_note_lists_every_decision_since_the_model_last_heard() -> None:
    book = _book()
    book.track(RUN, {"h3": ("b.py", 1, "+1 −0 at line 1")})
    book.sent(["h3"])
    drain = book.run_started(RUN)
    # Three clicks, one after the other, before the next model call.
    await book.decide(_params({"id": "h2", "outcome": "undone"}), None)
    await book.decide(_params({"id": "h3", "outcome": "kept"}, uri="file:///w/b.py"), None)
    await book.decide(_params({"id": "h1", "outcome": "kept"}), None)
    (message,) = drain()
    assert message.count("The user reviewed your edits in the editor:") == 1
    assert message.count("Read a file again before you edit it further.") == 1
    assert message.splitlines() == [
        "The user reviewed your edits in the editor:",
        "- a.py, hunk 1 (+1 −1 at line 2): kept.",
        "- a.py, hunk 2 (+2 −0 at line 9): undone; that region has its text from before "
        "your edit again.",
        "- b.py, hunk 1 (+1 −0 at line 1): kept.",
        "Read a file again before you edit it further.",
    ]


async def test_a_hunk_decided_twice_is_told_once_as_it_is_now() -> None:
    book = _book()
    drain = book.run_started(RUN)
    await book.decide(_params({"id": "h2", "outcome": "undone"}), None)
    await book.decide(_params({"id": "h2", "outcome": "kept"}), None)
    (message,) = drain()
    assert "hunk 2 (+2 −0 at line 9): kept." in message
    assert "undone" not in message


async def test_an_undo_taken_back_before_the_model_heard_is_no_news() -> None:
    told: list[dict[str, object]] = []
    book = _book(told)
    drain = book.run_started(RUN)
    await book.decide(_params({"id": "h2", "outcome": "undone"}), None)
    await book.decide(_params({"id": "h2", "outcome": "pending"}), None)
    assert drain() == []
    # The client hears that nothing waits: the model's picture is right again.
    assert told[-1] == {"hunks": ["h2"], "state": "told", "otherSession": False}


async def test_an_undo_taken_back_after_the_model_heard_is_told() -> None:
    book = _book()
    drain = book.run_started(RUN)
    await book.decide(_params({"id": "h2", "outcome": "undone"}), None)
    assert "undone" in drain()[0]
    await book.decide(_params({"id": "h2", "outcome": "pending"}), None)
    (message,) = drain()
    assert "hunk 2 (+2 −0 at line 9): back in the buffer (the user undid their undo)" in message
    # Undone again: the model heard "pending" last, so that is news again.
    await book.decide(_params({"id": "h2", "outcome": "undone"}), None)
    assert "undone" in drain()[0]


async def test_the_client_hears_what_became_of_its_decisions() -> None:
    told: list[dict[str, object]] = []
    book = _book(told)
    book.run_started(RUN)
    book.run_ended(RUN)
    await book.decide(
        _params({"id": "h1", "outcome": "kept"}, {"id": "gone", "outcome": "kept"}), None
    )
    assert told == [
        {"hunks": ["h1"], "state": "waiting", "sessionId": "s1", "otherSession": False},
        {"hunks": ["gone"], "state": "unknown", "otherSession": False},
    ]
    (note,) = book.run_started(RunHandle(RunTicket("r2", "s1")))()
    assert told[-1] == {
        "hunks": ["h1"],
        "state": "told",
        "runId": "r2",
        "sessionId": "s1",
        "note": note,
        "otherSession": False,
    }


async def test_a_run_of_another_session_is_told_once_and_the_own_session_still_hears() -> None:
    told: list[dict[str, object]] = []
    book = _book(told)
    book.run_started(RUN)
    book.run_ended(RUN)
    await book.decide(
        _params({"id": "h1", "outcome": "kept"}, {"id": "h2", "outcome": "undone"}), None
    )
    other = RunHandle(RunTicket("p1", "palette"))
    (message,) = book.run_started(other)()
    assert message.startswith(
        "The user reviewed edits made in another conversation in this workspace"
    )
    assert "hunk 2 (+2 −0 at line 9): undone; that region has its text from before that edit" in (
        message
    )
    assert told[-1]["state"] == "told" and told[-1]["otherSession"] is True
    book.run_ended(other)
    assert book.run_started(RunHandle(RunTicket("p2", "palette")))() == []
    (own,) = book.run_started(RunHandle(RunTicket("r2", "s1")))()
    assert own.startswith("The user reviewed your edits in the editor:")
    assert "before your edit again" in own


def test_the_pending_note_says_what_auto_save_does() -> None:
    assert "not saved to disk until they decide" in PENDING_NOTE
    saved = pending_note({"a.py": AutoSave("afterDelay", True)})
    assert "already saved to disk and commands you run see your text" in saved
    assert "not saved to disk until" not in saved
    later = pending_note({"a.py": AutoSave("afterDelay", False)})
    assert "auto-saves changed files after a short delay" in later
    focus = pending_note({"a.py": AutoSave("onFocusChange", False)})
    assert "when focus leaves the editor or the window" in focus
    assert pending_note({"a.py": AutoSave("off", False)}) == PENDING_NOTE
    mixed = pending_note({"a.py": AutoSave("afterDelay", True), "b.py": None})
    assert "a.py: The editor auto-saves" in mixed and "b.py: It is not saved" in mixed


def test_an_auto_save_report_is_used_by_the_next_edit_of_that_file_only() -> None:
    book = InlineReviews()
    book.autosaved(
        ReviewAutoSaveParams(uri="file:///w/a.py", version=3, mode="afterDelay", saved=True)
    )
    assert "already saved" in book.pending_note([("a.py", "file:///w/a.py")])
    assert book.pending_note([("a.py", "file:///w/a.py")]) == PENDING_NOTE


async def test_the_book_does_not_keep_an_ended_run_alive() -> None:
    """A hunk names its run by ids: the handle (its task, outcome, observer) is freed when
    the run ends, however long the hunk stays under review."""
    import gc
    import weakref

    book = InlineReviews()
    run = RunHandle(RunTicket("r9", "s9"))
    book.track(run, {"h9": ("a.py", 1, "+1 −1 at line 2")})
    book.sent(["h9"])
    book.run_started(run)
    book.run_ended(run)
    await book.decide(_params({"id": "h9", "outcome": "undone"}), None)
    gone = weakref.ref(run)
    del run
    gc.collect()
    assert gone() is None
    assert book.hunks["h9"].run.session_id == "s9"


async def test_the_book_forgets_the_oldest_hunks_and_news_beyond_its_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentls.server import inline_review

    monkeypatch.setattr(inline_review, "MAX_HUNKS", 3)
    monkeypatch.setattr(inline_review, "MAX_SESSIONS_WITH_NEWS", 2)
    told: list[dict[str, object]] = []
    book = InlineReviews(notify=lambda _m, p: told.append(p))
    for n in range(5):
        # One edit per session, decided after its run: news for a next run that never comes.
        book.track(RunHandle(RunTicket(f"r{n}", f"s{n}")), {f"h{n}": ("a.py", 1, "+1 −1")})
        book.sent([f"h{n}"])
        await book.decide(_params({"id": f"h{n}", "outcome": "kept"}), None)
    assert list(book.hunks) == ["h2", "h3", "h4"]
    assert list(book._news) == ["s3", "s4"]
    # A decision about a forgotten hunk is answered as unknown, as another server's is.
    await book.decide(_params({"id": "h0", "outcome": "undone"}), None)
    assert told[-1]["state"] == "unknown" and told[-1]["hunks"] == ["h0"]
    # The sessions still remembered hear their news.
    (message,) = book.run_started(RunHandle(RunTicket("r5", "s4")))()
    assert "kept" in message
