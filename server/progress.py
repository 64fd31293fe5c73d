"""``$/progress`` for one run (``window/workDoneProgress/create``, ``$/progress``).

Only used when the client declares ``window.workDoneProgress``. The token is the
client's ``workDoneToken`` when the request carried one, else one the server creates
with ``window/workDoneProgress/create``. The progress is cancellable: pygls resolves
``ls.work_done_progress.tokens[token]`` (cancels the future) on
``window/workDoneProgress/cancel`` but does nothing else, so a done-callback on that
future calls ``on_cancel``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)


def client_supports_progress(caps: types.ClientCapabilities | None) -> bool:
    return bool(caps and caps.window and caps.window.work_done_progress)


class RunProgress:
    """Begin / report / end of one run's progress; every call is safe to make twice."""

    def __init__(self, ls: LanguageServer, *, on_cancel: Callable[[], None]) -> None:
        self._ls = ls
        self._on_cancel = on_cancel
        self.token: types.ProgressToken | None = None
        self._ended = False
        self._loop = asyncio.get_running_loop()

    @property
    def active(self) -> bool:
        return self.token is not None and not self._ended

    async def begin(
        self, title: str, *, token: types.ProgressToken | None, fallback_token: str
    ) -> None:
        """Start the progress; without client support this does nothing."""
        if not client_supports_progress(self._ls.client_capabilities):
            return
        progress = self._ls.work_done_progress
        if token is None:
            try:
                await progress.create_async(fallback_token)
            except Exception as exc:  # the client may refuse; the run goes on without
                log.warning("window/workDoneProgress/create failed: %s", exc)
                return
            token = fallback_token
        self.token = token
        progress.begin(
            token,
            types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0),
        )
        future = progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(self._cancelled)

    def _cancelled(self, future: Future[Any]) -> None:
        if not future.cancelled() or self._ended:
            return
        # May run on any thread: hop onto the loop.
        self._loop.call_soon_threadsafe(self._on_cancel)

    def report(self, message: str, percentage: int | None = None) -> None:
        if not self.active or self.token is None:
            return
        value = types.WorkDoneProgressReport(message=message, cancellable=True)
        if percentage is not None:
            value.percentage = max(0, min(100, percentage))
        self._ls.work_done_progress.report(self.token, value)

    def end(self, message: str) -> None:
        if not self.active or self.token is None:
            return
        self._ended = True
        self._ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        self._ls.work_done_progress.tokens.pop(self.token, None)
