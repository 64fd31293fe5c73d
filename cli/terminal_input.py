"""Lines typed on the terminal while a run works: answers to the run's questions, or
messages to the run.

One reader owns the terminal's input for the whole run, so a typed line has one
destination: while a question waits (an approval, an edit to confirm, the agent asking
the user), the line answers it; otherwise it is a message to the run. A plain line is
queued (the model reads it before its next call); a line starting with ``/steer `` also
cuts the model call in flight, which starts again with it.

Reading happens on the event loop (``add_reader`` on the terminal's descriptor), never in
a thread: a thread blocked on the terminal would keep the process alive after the run
until the user pressed Enter.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from agentls.agent.events import AgentEvent, MessagesDelivered, RunState, StatusChanged
from agentls.agent.run_messages import MessageMode, RunMessageError, RunMessages

#: A typed line starting with this steers: the model call in flight is cut.
STEER_PREFIX = "/steer"


class TerminalLines:
    """The terminal's input, line by line, read on the event loop.

    ``readline`` hands the next line to whoever asks (a question); a line nobody asked
    for goes to ``on_unasked`` once ``open_messages`` was called. Before that (the run
    is still being prepared: the trust and MCP questions come then) lines are typed
    ahead: kept for the next question, and handed on as messages when the run starts.
    """

    def __init__(self, stdin: IO[str], on_unasked: Callable[[str], None]) -> None:
        self._stdin = stdin
        self._on_unasked = on_unasked
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""
        self._waiter: asyncio.Future[str] | None = None
        self._fd: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._at_end = False
        self._ahead: list[str] = []
        self._messages_open = False

    def open_messages(self) -> None:
        """The run works: lines nobody asked for are messages to it from now on (the
        ones typed ahead first)."""
        if self._messages_open:
            return
        self._messages_open = True
        ahead, self._ahead = self._ahead, []
        for line in ahead:
            self._on_unasked(line)

    def start(self) -> bool:
        """Starts reading; False when this platform cannot watch the terminal (Windows)."""
        loop = asyncio.get_running_loop()
        try:
            fd = self._stdin.fileno()
            loop.add_reader(fd, self._readable)
        except (NotImplementedError, OSError, ValueError):
            return False
        self._fd, self._loop = fd, loop
        return True

    def stop(self) -> None:
        if self._loop is not None and self._fd is not None:
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_reader(self._fd)
        self._fd = None
        self._answer("")

    async def readline(self) -> str:
        """The next line typed (with its newline); "" at the end of the input."""
        if self._ahead:
            return self._ahead.pop(0) + "\n"
        if self._at_end or self._fd is None:
            return ""
        if self._waiter is not None and not self._waiter.done():
            raise RuntimeError("two questions read the terminal at once")
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            return await self._waiter
        finally:
            self._waiter = None

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._at_end = True
            if self._loop is not None:
                self._loop.remove_reader(self._fd)
            self._answer("")
            return
        self._partial += self._decoder.decode(data)
        while "\n" in self._partial:
            line, self._partial = self._partial.split("\n", 1)
            if self._answer(line + "\n"):
                continue
            if self._messages_open:
                self._on_unasked(line)
            else:
                self._ahead.append(line)

    def _answer(self, line: str) -> bool:
        waiter = self._waiter
        if waiter is None or waiter.done():
            return False
        waiter.set_result(line)
        return True


@dataclass(frozen=True)
class TypedMessage:
    text: str
    mode: MessageMode


def parse_typed_line(line: str) -> TypedMessage | str | None:
    """A typed line as a message; None for a blank line, a str for a line that cannot
    be sent (why)."""
    stripped = line.strip()
    if not stripped:
        return None
    head, _, rest = stripped.partition(" ")
    if head == STEER_PREFIX:
        if not rest.strip():
            return f"nothing to steer with: type `{STEER_PREFIX} <message>`"
        return TypedMessage(rest.strip(), "steer")
    return TypedMessage(stripped, "queue")


class TerminalMessages:
    """Typed lines as messages to the run, told back to the user: queued when sent,
    delivered when the model has them."""

    def __init__(self, mailbox: RunMessages, say: Callable[[str], None]) -> None:
        self.mailbox = mailbox
        self._say = say
        self._texts: dict[str, str] = {}
        #: The terminal's reader, told when the run starts working.
        self.lines: TerminalLines | None = None

    def typed(self, line: str) -> None:
        parsed = parse_typed_line(line)
        if parsed is None:
            return
        if isinstance(parsed, str):
            self._say(f"[message not sent: {parsed}]")
            return
        try:
            sent = self.mailbox.send(parsed.text, parsed.mode)
        except RunMessageError as exc:
            self._say(f"[message not sent: {exc}]")
            return
        self._texts[sent.id] = sent.text
        if sent.mode == "steer":
            self._say(f"[steering with your message: {_short(sent.text)}]")
        else:
            self._say(f"[queued for the model's next step: {_short(sent.text)}]")

    def observe(self, event: AgentEvent) -> None:
        if (
            self.lines is not None
            and isinstance(event, StatusChanged)
            and event.state == RunState.MODEL_RUNNING
        ):
            self.lines.open_messages()
        if isinstance(event, MessagesDelivered):
            texts = [_short(self._texts.pop(i, i)) for i in event.ids]
            self._say(f"[the model has your message: {'; '.join(texts)}]")


def _short(text: str, limit: int = 80) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
