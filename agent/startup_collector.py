"""The cyclic garbage collector, paused while a command-line process starts.

A start imports some 500 modules and builds a few hundred classes and validators. The
collector scans those young objects a hundred times on the way (~40 ms of a ~0.6 s start
to the first model request) and finds almost no garbage: what a start makes lives as long
as the process. So ``agentls run`` and ``agentls acp`` pause it as they start, and the
first model call resumes it, after moving everything made so far into the permanent
generation (``gc.freeze``), which later collections do not scan again. A process that
never reaches a model (a failed config, an ACP client that only lists sessions) gets its
collector back from a timer, so no process runs long without one.
"""

from __future__ import annotations

import gc
import threading

#: Longest a process runs with its collector paused, whatever happens.
PAUSE_AT_MOST_SECONDS = 5.0

_lock = threading.Lock()
_paused = False
_timer: threading.Timer | None = None


def pause_collection(at_most: float = PAUSE_AT_MOST_SECONDS) -> None:
    """Pause the collector until ``resume_collection``, or ``at_most`` seconds."""
    global _paused, _timer
    with _lock:
        if _paused or not gc.isenabled():
            return  # already paused, or switched off by whoever embeds us: theirs to decide
        gc.disable()
        _paused = True
        _timer = threading.Timer(at_most, resume_collection)
        _timer.daemon = True
        _timer.name = "agentls-resume-collector"
        _timer.start()


def resume_collection() -> None:
    """End the pause, if there is one: what the start made is frozen, and the collector
    runs again. Safe to call any number of times, from any thread."""
    global _paused, _timer
    with _lock:
        if not _paused:
            return
        _paused = False
        timer, _timer = _timer, None
        gc.freeze()
        gc.enable()
    if timer is not None and timer is not threading.current_thread():
        timer.cancel()
