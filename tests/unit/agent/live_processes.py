"""The processes a test left running, found by a marker in their command line. The
marker holds this test process's id, so a suite running beside this one on the same
machine (its own processes, its own markers) is never mistaken for a leak here."""

from __future__ import annotations

import os
from pathlib import Path


def sleep_marker(n: int) -> str:
    """A number of seconds to sleep (``sleep <marker>``) that names test ``n`` of this
    process; small enough for Python's ``time.sleep``."""
    return f"87{n}{os.getpid() % 100_000:05d}"


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != b"Z":
            found.append(int(entry))
    return found
