"""Inline review: the editor shows the agent's edits in place and the user keeps or undoes
each hunk while the agent goes on.

A client that declares ``experimental.agentls.inlineReview: true`` answers an edit that
needs confirmation at once: it applies it to the buffer and reviews it there. Each hunk
of such an edit gets an id (its change annotation id), remembered here with the run and
session it belongs to. The user's decisions come back as ``agent/reviewDecision``
notifications (``ReviewDecisionParams``, server/protocol.py); ``InlineReviews.decide``
records each in the session as an ``approval_decision`` entry and queues a short note for
the model: the running run reads it before its next model call (``inbox``), a finished
run's notes wait for the session's next run.

Nothing here waits for the user: an agent that edits a region the user changed meanwhile
is refused by the file access's stale check, never allowed to clobber it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lsprotocol import types as lsp

from agentls.agent.approval import BaseApprover, EditReview
from agentls.agent.session_recorder import RecordingApprover, SessionRecorder
from agentls.agent.sessions import SessionStore
from agentls.server.protocol import HunkDecision, ReviewDecisionParams
from agentls.server.run_handle import RunHandle

log = logging.getLogger(__name__)

METHOD = "agent/reviewDecision"
TOOL = "inline_review"
#: Longest current text of a changed region quoted to the model.
QUOTE_CHARS = 2000

_DECISION_KIND: dict[str, str] = {"kept": "approve", "undone": "deny", "changedByUser": "modify"}


def client_reviews_inline(caps: lsp.ClientCapabilities | None) -> bool:
    """Whether the client declared ``experimental.agentls.inlineReview: true``."""
    experimental = caps.experimental if caps is not None else None
    if not isinstance(experimental, dict):
        return False
    ours = experimental.get("agentls")
    return isinstance(ours, dict) and ours.get("inlineReview") is True


#: Whose hunks are those of an edit sent outside any run.
NO_RUN = RunHandle("", "")


@dataclass
class PendingHunk:
    run: RunHandle
    path: str
    index: int
    summary: str
    #: True while the applyEdit that carries it has not been answered: a client that
    #: waits for the decision answers then, and the edit's own outcome tells the model.
    in_flight: bool = True
    decided: bool = False


@dataclass
class _Inbox:
    notes: list[str] = field(default_factory=list)


class InlineReviews:
    """The hunks under review on one server, and the notes waiting for the model.

    One book per server (``AgentLanguageServer.reviews``): its file accesses track the
    hunks they send, its runs read their notes, and its ``agent/reviewDecision`` handler
    decides them, all in the same book.
    """

    def __init__(self) -> None:
        self.hunks: dict[str, PendingHunk] = {}
        self._runs: dict[str, _Inbox] = {}  # live runs
        self._live: list[RunHandle] = []
        self._sessions: dict[str, list[str]] = {}  # notes for a session's next run
        self._seq = 0

    # -- the edit-sending side ------------------------------------------------------
    def prefix(self, run: RunHandle | None) -> str:
        """A prefix for the annotation ids of one edit, unique on this server."""
        self._seq += 1
        return f"review-{run.run_id if run else 'norun'}-{self._seq}"

    def track(self, run: RunHandle | None, ids: dict[str, tuple[str, int, str]]) -> None:
        """Remember the hunks of an edit being sent: id -> (path, index, summary)."""
        if run is None:
            run = NO_RUN
        for ident, (path, index, summary) in ids.items():
            self.hunks[ident] = PendingHunk(run, path, index, summary)

    def sent(self, ids: Sequence[str]) -> int:
        """The client answered the edit: decisions from now on are news to the model.
        Returns how many of its hunks are still undecided (a client that waits for the
        user answers once all are)."""
        undecided = 0
        for ident in ids:
            hunk = self.hunks.get(ident)
            if hunk is not None:
                hunk.in_flight = False
                undecided += not hunk.decided
        return undecided

    # -- the run side -----------------------------------------------------------------
    def run_started(self, run: RunHandle) -> Callable[[], list[str]]:
        """Open the run's inbox; the returned callable drains it (and, the first time,
        what the session's earlier runs were not told)."""
        inbox = self._runs.setdefault(run.run_id, _Inbox())
        inbox.notes[:0] = self._sessions.pop(run.session_id, [])
        self._live.append(run)

        def drain() -> list[str]:
            notes, inbox.notes = inbox.notes, []
            return notes

        return drain

    def run_ended(self, run: RunHandle) -> None:
        """Notes the run did not read go to the session's next run."""
        inbox = self._runs.pop(run.run_id, None)
        if run in self._live:
            self._live.remove(run)
        if inbox is not None and inbox.notes:
            self._sessions.setdefault(run.session_id, []).extend(inbox.notes)

    # -- decisions ---------------------------------------------------------------------
    async def decide(self, params: ReviewDecisionParams, store: SessionStore | None) -> str:
        """Queue the note for the model, then record the decisions; returns the note.

        The note is queued before anything is awaited, so a run that starts once the
        decisions are recorded is sure to be told."""
        lines: list[str] = []
        by_run: dict[RunHandle, list[str]] = {}
        decided: list[tuple[PendingHunk, HunkDecision, str]] = []
        for item in params.hunks:
            hunk = self.hunks.get(item.id)
            if hunk is None:
                log.warning("review decision for an unknown hunk %s (ignored)", item.id)
                continue
            hunk.decided = True
            line = describe(hunk, item)
            decided.append((hunk, item, line))
            if not hunk.in_flight:
                by_run.setdefault(hunk.run, []).append(line)
                lines.append(line)
        path = next((self.hunks[h.id].path for h in params.hunks if h.id in self.hunks), "")
        for extra in _file_notes(params, path) if by_run else []:
            for notes in by_run.values():
                notes.append(extra)
            lines.append(extra)
        for run, notes in by_run.items():
            self._deliver(run, NOTE_HEADER + "\n" + "\n".join(notes) + "\n" + NOTE_FOOTER)
        for hunk, item, line in decided:
            if store is not None and hunk.run.session_id:
                await _record(store, hunk, item, params.version, line)
        return "\n".join(lines)

    def _deliver(self, run: RunHandle, note: str) -> None:
        """To the run that made the edit while it lives, else to the run of the same
        session that lives now, else to the session's next run."""
        inbox = self._runs.get(run.run_id)
        if inbox is None and run.session_id:
            inbox = next(
                (self._runs[r.run_id] for r in self._live if r.session_id == run.session_id),
                None,
            )
        if inbox is not None:
            inbox.notes.append(note)
        elif run.session_id:
            self._sessions.setdefault(run.session_id, []).append(note)


def _file_notes(params: ReviewDecisionParams, path: str) -> list[str]:
    """What happened to the whole file after its last decision."""
    notes = []
    if params.deleted:
        notes.append(f"- {path}: you created it and the user undid all of it, so it was deleted.")
    if params.saved and params.changed_on_save:
        notes.append(
            f"- {path} was saved and saving changed it (format on save or the editor's "
            "save actions): read it again before editing it."
        )
    return notes


NOTE_HEADER = "The user reviewed your edits in the editor:"
NOTE_FOOTER = "Read a file again before you edit it further."


def describe(hunk: PendingHunk, item: HunkDecision) -> str:
    """One line (or a quoted block) for the model about one decided hunk."""
    head = f"- {hunk.path}, hunk {hunk.index} ({hunk.summary})"
    if item.outcome == "kept":
        return f"{head}: kept."
    if item.outcome == "undone":
        return f"{head}: undone; that region has its text from before your edit again."
    text = item.text or ""
    if len(text) > QUOTE_CHARS:
        text = text[:QUOTE_CHARS] + "\n[... cut]"
    where = f" (from line {item.line + 1})" if item.line is not None else ""
    return f"{head}: changed by the user; the region now reads{where}:\n```\n{text}\n```"


async def _record(
    store: SessionStore, hunk: PendingHunk, item: HunkDecision, version: int, line: str
) -> None:
    """The decision, through the approval point every human decision goes through."""
    review = EditReview(
        run_id=hunk.run.run_id,
        call_id=f"{item.id}@{version}",
        tool=TOOL,
        decision=_DECISION_KIND[item.outcome],
        message=line,
        args={"path": hunk.path, "hunk": hunk.index, "outcome": item.outcome}
        | ({"text": item.text} if item.text is not None else {}),
    )
    try:
        # The decision may come after the run ended: the recorder is opened on the
        # session and positioned after the run's last model call, as the live one is.
        recorder = SessionRecorder(store.open(hunk.run.session_id), hunk.run.run_id)
        await RecordingApprover(BaseApprover(), recorder).edit_reviewed(review)
    except Exception:  # a decision that cannot be recorded must still reach the model
        log.exception("could not record the review decision for %s", item.id)


PENDING_NOTE = (
    "It is in the editor's buffer, pending the user's review: the user keeps or undoes "
    "each hunk while you go on, and you will be told what they decided. It is not saved "
    "to disk until they decide, so commands you run see the old file meanwhile."
)
