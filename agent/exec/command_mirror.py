"""A running command's output as events, for a front end that mirrors it (an editor's
terminal): ``CommandStarted``, then ``CommandOutput`` pieces in order, then ``CommandEnded``.

The output is masked like everything else shown (``agent.secrets``, the outward pass). A
piece is released up to its last whitespace and the rest held until more comes, because a
secret never contains whitespace: one split across two reads of the pipe is still seen
whole before it is masked (a header word and its value, and a private key block, are held
until whole: ``release_point``). What a command
prints beyond ``MAX_MIRRORED`` characters is not mirrored (the model's result keeps the
ends, as ever), and the mirror says so.
"""

from __future__ import annotations

import codecs

from agentls.agent.events import CommandEnded, CommandOutput, CommandStarted, Observer
from agentls.agent.secrets import mask_outward, release_point

#: Held without whitespace beyond this, text is released anyway (masked as it stands).
MAX_HELD = 4096
#: A command's output mirrored at most (characters), so a flood cannot swamp an editor.
MAX_MIRRORED = 2_000_000


class CommandMirror:
    """One command's output as events to ``observer``; ``feed`` is ``run_process``'s
    ``on_output``."""

    def __init__(self, observer: Observer, call_id: str, tool: str, command: str) -> None:
        self._observer = observer
        self._call_id = call_id
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held = ""
        self._sent = 0
        self._cut = False
        observer(CommandStarted(call_id, tool, mask_outward(command)))

    def feed(self, data: bytes) -> None:
        if self._cut:
            return
        self._held += self._decoder.decode(data)
        cut = release_point(self._held.replace("\r", "\n"))
        if len(self._held) > MAX_HELD:
            cut = len(self._held)
        if cut:
            self._send(self._held[:cut])
            self._held = self._held[cut:]

    def end(self, exit_code: int | None, *, timed_out: bool = False) -> None:
        """The process is gone: what is held, then ``CommandEnded``."""
        if not self._cut:
            self._send(self._held + self._decoder.decode(b"", final=True))
        self._held = ""
        self._observer(CommandEnded(self._call_id, exit_code, timed_out))

    def _send(self, text: str) -> None:
        if not text:
            return
        if self._sent + len(text) > MAX_MIRRORED:
            self._cut = True
            text = text[: max(MAX_MIRRORED - self._sent, 0)]
            text += "\n[... the rest of the output is not shown here ...]\n"
        self._sent += len(text)
        self._observer(CommandOutput(self._call_id, mask_outward(text)))
