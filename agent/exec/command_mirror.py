"""A running command's output as events, for a front end that mirrors it (an editor's
terminal): ``CommandStarted``, then ``CommandOutput`` pieces in order, then ``CommandEnded``.

The output is masked like everything else shown (``agent.secrets``, the outward pass) and
held as every stream that leaves in pieces is (``HeldText``): a secret split across two
reads of the pipe is still seen whole before it is masked, and what is cut off past
``MAX_MIRRORED`` characters is cut from masked text, never through a secret. What a
command prints beyond that is not mirrored (the model's result keeps the ends, as ever),
and the mirror says so.
"""

from __future__ import annotations

import codecs

from agentls.agent.events import CommandEnded, CommandOutput, CommandStarted, Observer
from agentls.agent.secrets import HeldText, mask_outward

#: A command's output mirrored at most (characters), so a flood cannot swamp an editor.
MAX_MIRRORED = 2_000_000


class CommandMirror:
    """One command's output as events to ``observer``; ``feed`` is ``run_process``'s
    ``on_output``."""

    def __init__(self, observer: Observer, call_id: str, tool: str, command: str) -> None:
        self._observer = observer
        self._call_id = call_id
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held = HeldText(returns_end_lines=True)
        self._sent = 0
        self._cut = False
        observer(CommandStarted(call_id, tool, mask_outward(command)))

    def feed(self, data: bytes) -> None:
        if self._cut:
            return
        self._send(self._held.add(self._decoder.decode(data)))

    def end(self, exit_code: int | None, *, timed_out: bool = False) -> None:
        """The process is gone: what is held, then ``CommandEnded``."""
        if not self._cut:
            self._send(self._held.add(self._decoder.decode(b"", final=True)))
            self._send(self._held.rest())
        self._held.discard()
        self._observer(CommandEnded(self._call_id, exit_code, timed_out))

    def _send(self, masked: str) -> None:
        if not masked or self._cut:
            return
        if self._sent + len(masked) > MAX_MIRRORED:
            self._cut = True
            masked = masked[: max(MAX_MIRRORED - self._sent, 0)]
            masked += "\n[... the rest of the output is not shown here ...]\n"
        self._sent += len(masked)
        self._observer(CommandOutput(self._call_id, masked))
