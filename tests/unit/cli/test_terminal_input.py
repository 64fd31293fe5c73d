"""Typed lines as messages to the run: queued, steering, and the lines that are not sent."""

from __future__ import annotations

from agentls.agent.events import MessagesDelivered
from agentls.agent.run_messages import RunMessages
from agentls.cli.terminal_input import TerminalMessages, TypedMessage, parse_typed_line


def test_a_plain_line_is_queued_and_a_steer_line_steers() -> None:
    assert parse_typed_line("  add tests \n") == TypedMessage("add tests", "queue")
    assert parse_typed_line("/steer use Go\n") == TypedMessage("use Go", "steer")
    assert parse_typed_line("/steering is a word") == TypedMessage("/steering is a word", "queue")
    assert parse_typed_line("   \n") is None
    assert "nothing to steer with" in str(parse_typed_line("/steer  "))


def test_the_user_hears_queued_delivered_and_refused() -> None:
    said: list[str] = []
    mailbox = RunMessages()
    typed = TerminalMessages(mailbox, said.append)
    typed.typed("add tests")
    [pending] = mailbox.take()
    typed.observe(MessagesDelivered([pending.id]))
    mailbox.close("run r1 has ended (success)")
    typed.typed("too late")
    assert said == [
        "[queued for the model's next step: add tests]",
        "[the model has your message: add tests]",
        "[message not sent: run r1 has ended (success)]",
    ]
