"""The folder engine's book of runs in flight: ids, refusals, cancel, messages."""

from __future__ import annotations

import pytest

from agentls.agent.folder.runs import RunBook, RunRefused
from agentls.agent.run_messages import RunMessageError


def test_ids_are_made_when_not_given_and_kept_when_given() -> None:
    book = RunBook()
    made = book.begin(None, None, "plan")
    given = book.begin("r1", "s1", "build")
    assert made.run_id and made.session_id and made.run_id != made.session_id
    assert (given.run_id, given.session_id, given.agent) == ("r1", "s1", "build")
    assert made.agent == "plan"
    assert book.in_flight() == [made, given]


def test_a_run_id_in_flight_is_refused() -> None:
    book = RunBook()
    book.begin("r1", "s1", "build")
    with pytest.raises(RunRefused, match="run 'r1' is already in flight"):
        book.begin("r1", "s2", "build")


def test_a_second_run_of_a_session_is_refused_until_the_first_ends() -> None:
    book = RunBook()
    book.begin("r1", "s1", "build")
    with pytest.raises(RunRefused, match="session 's1' already has a run in flight"):
        book.begin("r2", "s1", "build")
    book.end("r1")
    assert book.begin("r2", "s1", "build").run_id == "r2"


def test_cancel_sets_the_token_once_and_only_for_a_run_in_flight() -> None:
    book = RunBook()
    ticket = book.begin("r1", "s1", "build")
    assert book.cancel("nope", "why") is False
    assert book.cancel("r1", "the user asked") is True
    assert ticket.token.cancelled and ticket.token.reason == "the user asked"
    assert book.cancel("r1", "again") is False
    assert ticket.token.reason == "the user asked"


def test_cancel_all_cancels_every_run_in_flight() -> None:
    book = RunBook()
    one, other = book.begin("r1", "s1", "build"), book.begin("r2", "s2", "build")
    book.cancel_all("shutdown")
    assert one.token.reason == other.token.reason == "shutdown"


def test_a_message_reaches_the_runs_mailbox() -> None:
    book = RunBook()
    ticket = book.begin("r1", "s1", "build")
    sent = book.message("r1", "also the tests", "steer")
    assert (sent.text, sent.mode) == ("also the tests", "steer")
    assert ticket.messages.take() == [sent]


def test_messages_are_refused_after_the_end_and_while_cancelling() -> None:
    book = RunBook()
    book.begin("r1", "s1", "build")
    book.begin("r2", "s2", "build")
    book.cancel("r2", "stop")
    with pytest.raises(RunMessageError, match="run r2 is being cancelled"):
        book.message("r2", "hello", "queue")
    book.end("r1")
    with pytest.raises(RunMessageError, match="no run r1 is in flight"):
        book.message("r1", "hello", "queue")
    with pytest.raises(RunMessageError, match="no run r9 is in flight"):
        book.message("r9", "hello", "queue")
    book.begin("r3", "s3", "build")
    with pytest.raises(RunMessageError, match="empty"):
        book.message("r3", "  ", "queue")
    assert [t.run_id for t in book.in_flight()] == ["r2", "r3"]


def test_the_end_names_what_a_run_that_never_read_its_mailbox_was_sent() -> None:
    book = RunBook()
    ticket = book.begin("r1", "s1", "build")
    book.message("r1", "add tests")
    assert [m.text for m in book.end("r1")] == ["add tests"]
    with pytest.raises(RunMessageError, match="run r1 has ended"):
        ticket.messages.send("too late")
    # A run that closed its mailbox itself keeps its reason; nothing is left to name.
    done = book.begin("r2", "s2", "build")
    done.messages.close("run r2 has ended (success)")
    assert book.end("r2") == [] and book.end("unknown") == []
    with pytest.raises(RunMessageError, match=r"\(success\)"):
        done.messages.send("late")
