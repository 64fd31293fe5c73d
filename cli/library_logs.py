"""What reaches the terminal of the libraries' logs: only their errors.

Without a handler, Python prints every warning of every logger on stderr (its "last
resort"), so a library's chatter about its own internals (a client ignoring a notification
it has no handler for, a retry inside an HTTP pool) lands between the lines a user reads.
agentls's own warnings say something the user can act on and stay; a library's reach the
terminal only when they are errors.
"""

from __future__ import annotations

import logging
import sys

OWN = "agentls"


class _OwnWarningsAndAllErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        own = record.name == OWN or record.name.startswith(OWN + ".")
        return own or record.levelno >= logging.ERROR


def quiet_library_logs() -> None:
    """Print agentls's warnings and anyone's errors on stderr, as the last resort did, and
    nothing else. Does nothing when logging was set up already (a test, an embedding)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(_OwnWarningsAndAllErrors())
    root.addHandler(handler)
