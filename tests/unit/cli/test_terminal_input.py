"""Typed lines as messages to the run: queued, steering, and the lines that are not sent."""

from __future__ import annotations

import asyncio

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


async def test_lines_typed_before_the_run_starts_answer_its_questions_first() -> None:
    """Type-ahead: answers typed before the trust and MCP questions appear are theirs; what
    is left becomes a message once the model works."""
    import os

    from agentls.agent.events import RunState, StatusChanged
    from agentls.cli.terminal_input import TerminalLines

    read_end, write_end = os.pipe()
    said: list[str] = []
    typed = TerminalMessages(RunMessages(), said.append)
    with os.fdopen(read_end) as stdin:
        lines = TerminalLines(stdin, typed.typed)
        typed.lines = lines
        assert lines.start()
        os.write(write_end, b"n\nn\nplease add tests\n")
        assert await lines.readline() == "n\n"  # the first MCP server's question
        assert await lines.readline() == "n\n"  # the second's
        assert said == []  # the third line waits: nobody asked, and the run has not begun
        typed.observe(StatusChanged(RunState.MODEL_RUNNING))
        assert said == ["[queued for the model's next step: please add tests]"]
        os.write(write_end, b"and docs\n")
        for _ in range(100):
            if len(said) == 2:
                break
            await asyncio.sleep(0.01)
        assert said[1] == "[queued for the model's next step: and docs]"
        lines.stop()
    os.close(write_end)
