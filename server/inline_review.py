"""Inline review: the editor shows the agent's edits in place and the user keeps or undoes
each hunk while the agent goes on.

A client that declares ``experimental.agentls.inlineReview: true`` answers an edit that
needs confirmation at once: it applies it to the buffer and reviews it there. Each hunk
of such an edit gets an id (its change annotation id), remembered here with the run and
session it belongs to. The user's decisions come back as ``agent/reviewDecision``
notifications (``ReviewDecisionParams``, server/protocol.py); ``InlineReviews.decide``
records each in the session as an ``approval_decision`` entry and keeps it as news for
the model of that session until a model call hears it: the session's run in flight
before its next model call, else the session's next run before its prompt. A run of
another session (another conversation in the same workspace) is told too, once, so
that whoever the user talks to next knows what the files hold; the edit's own session
still hears it when it is continued. The news of one hunk is its latest decision: a
hunk undone then kept is told as kept, one undone and brought back (Ctrl+Z) before the
model heard anything is not told at all.

The client hears what became of its decisions through ``agent/reviewDelivery``: waiting
for a model call, told (with the exact note), or unknown to this server (made by another
server process: they never reach a model).

Before it answers an edit, the client says with ``agent/reviewAutoSave`` whether its
auto-save writes the file, so that the edit's tool result tells the model the truth
about what is on disk.

Nothing here waits for the user: an agent that edits a region the user changed meanwhile
is refused by the file access's stale check, never allowed to clobber it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as lsp
from pygls.uris import to_fs_path

from agentls.agent.policy.approval import BaseApprover, EditReview
from agentls.agent.sessions.recorder import RecordingApprover, SessionRecorder
from agentls.agent.sessions.store import SessionStore
from agentls.server.protocol import (
    HunkDecision,
    ReviewAutoSaveParams,
    ReviewDecisionParams,
    ReviewDeliveryParams,
)
from agentls.server.run_handle import RunHandle

log = logging.getLogger(__name__)

METHOD = "agent/reviewDecision"
DELIVERY_METHOD = "agent/reviewDelivery"
TOOL = "inline_review"
#: Longest current text of a changed region quoted to the model.
QUOTE_CHARS = 2000

_DECISION_KIND: dict[str, str] = {
    "kept": "approve",
    "undone": "deny",
    "changedByUser": "modify",
    "pending": "reopen",
}

Notify = Callable[[str, dict[str, Any]], None]


def client_reviews_inline(caps: lsp.ClientCapabilities | None) -> bool:
    """Whether the client declared ``experimental.agentls.inlineReview: true``."""
    experimental = caps.experimental if caps is not None else None
    if not isinstance(experimental, dict):
        return False
    ours = experimental.get("agentls")
    return isinstance(ours, dict) and ours.get("inlineReview") is True


#: The hunks a server remembers, and the sessions whose news waits for their next run:
#: beyond these the oldest are forgotten (a decision about a forgotten hunk is answered as
#: unknown), so a server that lives for weeks of edits keeps a bounded book.
MAX_HUNKS = 4096
MAX_SESSIONS_WITH_NEWS = 256


@dataclass(frozen=True)
class HunkOwner:
    """Whose edit a hunk is: the ids alone. The book outlives the runs, so it must not hold
    a run's handle (its task, outcome, observer and progress would live as long as the
    server)."""

    run_id: str
    session_id: str


#: Whose hunks are those of an edit sent outside any run.
NO_RUN = HunkOwner("", "")


@dataclass
class PendingHunk:
    run: HunkOwner
    path: str
    index: int
    summary: str
    #: True while the applyEdit that carries it has not been answered: a client that
    #: waits for the decision answers then, and the edit's own outcome tells the model.
    in_flight: bool = True
    decided: bool = False
    #: The outcome the model of the hunk's own session last heard (None: that it is
    #: pending, as the edit's tool result said).
    heard: str | None = None


@dataclass
class _News:
    """What one session's model has not heard yet: the latest decision per hunk, and
    what happened to whole files."""

    hunks: dict[str, tuple[PendingHunk, HunkDecision]] = field(default_factory=dict)
    #: (path, kind) of what happened to whole files (``_file_line``).
    files: set[tuple[str, str]] = field(default_factory=set)
    #: Hunks (and file notes) already told to a run of another session.
    told_elsewhere: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.hunks or self.files)


@dataclass(frozen=True)
class AutoSave:
    """How the client's auto-save treats a file under review (``agent/reviewAutoSave``)."""

    mode: str
    saved: bool


class InlineReviews:
    """The hunks under review on one server, and the news waiting for the models.

    One book per server (``AgentLanguageServer.reviews``): its file accesses track the
    hunks they send, its runs read their news, and its ``agent/reviewDecision`` handler
    decides them, all in the same book. ``notify`` sends a notification to the client.
    """

    def __init__(self, notify: Notify | None = None) -> None:
        self.hunks: dict[str, PendingHunk] = {}
        self._news: dict[str, _News] = {}  # by session
        self._live: dict[str, RunHandle] = {}  # the run in flight of each session
        self._autosave: dict[str, AutoSave] = {}  # by file-system path
        self._notify = notify
        self._seq = 0

    # -- the edit-sending side ------------------------------------------------------
    def prefix(self, run: RunHandle | None) -> str:
        """A prefix for the annotation ids of one edit, unique on this server."""
        self._seq += 1
        return f"review-{run.run_id if run else 'norun'}-{self._seq}"

    def track(self, run: RunHandle | None, ids: dict[str, tuple[str, int, str]]) -> None:
        """Remember the hunks of an edit being sent: id -> (path, index, summary)."""
        owner = NO_RUN if run is None else HunkOwner(run.run_id, run.session_id)
        for ident, (path, index, summary) in ids.items():
            self.hunks[ident] = PendingHunk(owner, path, index, summary)
        _forget_oldest(self.hunks, MAX_HUNKS)

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

    def autosaved(self, params: ReviewAutoSaveParams) -> None:
        """The client's word on how its auto-save treats a file of the edit it is about
        to answer; read once, by that answer (``pending_note``)."""
        self._autosave[_fs(params.uri)] = AutoSave(params.mode, params.saved)

    def pending_note(self, files: Iterable[tuple[str, str]]) -> str:
        """What the model is told about an edit now pending review: ``files`` are its
        (path, uri) pairs; each file's auto-save report is used up here."""
        states = {path: self._autosave.pop(_fs(uri), None) for path, uri in files}
        return pending_note(states)

    # -- the run side -----------------------------------------------------------------
    def run_started(self, run: RunHandle) -> Callable[[], list[str]]:
        """The run is in flight; the returned callable gives its model what it has not
        heard yet (one note, or nothing) and is called before each model call."""
        if run.session_id:
            self._live[run.session_id] = run

        def drain() -> list[str]:
            note = self._drain(run)
            return [note] if note else []

        return drain

    def run_ended(self, run: RunHandle) -> None:
        """What the run did not read waits for the session's next run."""
        if self._live.get(run.session_id) is run:
            del self._live[run.session_id]

    def _drain(self, run: RunHandle) -> str:
        own = self._news.pop(run.session_id, None) if run.session_id else None
        own_lines: list[str] = []
        if own:
            for _ident, (hunk, item) in sorted(own.hunks.items(), key=_order):
                own_lines.append(describe(hunk, item))
                hunk.heard = None if item.outcome == "pending" else item.outcome
            own_lines += [_file_line(path, kind) for path, kind in sorted(own.files)]
        other_lines: list[str] = []
        other_ids: list[str] = []
        for session, news in self._news.items():
            if session == run.session_id or session in self._live:
                continue
            for ident, (hunk, item) in sorted(news.hunks.items(), key=_order):
                if ident not in news.told_elsewhere:
                    other_lines.append(describe(hunk, item, elsewhere=True))
                    other_ids.append(ident)
                    news.told_elsewhere.add(ident)
            for path, kind in sorted(news.files):
                marker = f"{path}\0{kind}"
                if marker not in news.told_elsewhere:
                    other_lines.append(_file_line(path, kind, elsewhere=True))
                    news.told_elsewhere.add(marker)
        if not own_lines and not other_lines:
            return ""
        parts: list[str] = []
        if own_lines:
            parts += [NOTE_HEADER, *own_lines]
        if other_lines:
            parts += [OTHER_HEADER if own_lines else OTHER_HEADER_ALONE, *other_lines]
        note = "\n".join([*parts, NOTE_FOOTER])
        if own:
            self._tell(list(own.hunks), "told", run, note)
        if other_ids:
            self._tell(other_ids, "told", run, note, other_session=True)
        return note

    # -- decisions ---------------------------------------------------------------------
    async def decide(self, params: ReviewDecisionParams, store: SessionStore | None) -> str:
        """Keep the decisions as news for the models, then record them; returns what the
        news says now (for the log).

        The news is updated before anything is awaited, so a run that starts once the
        decisions are recorded is sure to be told."""
        unknown: list[str] = []
        waiting: dict[str, list[str]] = {}
        heard: list[str] = []
        decided: list[tuple[PendingHunk, HunkDecision]] = []
        for item in params.hunks:
            hunk = self.hunks.get(item.id)
            if hunk is None:
                log.warning("review decision for an unknown hunk %s (ignored)", item.id)
                unknown.append(item.id)
                continue
            hunk.decided = item.outcome != "pending"
            decided.append((hunk, item))
            session = hunk.run.session_id
            if hunk.in_flight:
                # The edit's own outcome tells the model (a client that waits answers now).
                hunk.heard = None if item.outcome == "pending" else item.outcome
                continue
            if not session:
                continue  # no model ever made it
            news = self._news_of(session)
            news.told_elsewhere.discard(item.id)
            if item.outcome == (hunk.heard or "pending"):
                news.hunks.pop(item.id, None)  # back to what the model last heard
                heard.append(item.id)
            else:
                news.hunks[item.id] = (hunk, item)
                waiting.setdefault(session, []).append(item.id)
            if not news:
                del self._news[session]
        path = next((self.hunks[h.id].path for h in params.hunks if h.id in self.hunks), "")
        for session in waiting:
            news = self._news_of(session)
            for kind in _file_notes(params):
                news.files.add((path, kind))
                news.told_elsewhere.discard(f"{path}\0{kind}")
        for session, ids in waiting.items():
            self._tell(ids, "waiting", self._live.get(session), session=session)
        self._tell(heard, "told", None)
        if unknown:
            self._tell(unknown, "unknown", None)
        for hunk, item in decided:
            if store is not None and hunk.run.session_id:
                await _record(store, hunk, item, params.version, describe(hunk, item))
        return "\n".join(describe(hunk, item) for hunk, item in decided)

    def _news_of(self, session: str) -> _News:
        """The news waiting for ``session``'s model (a session that the user never
        continues keeps it until it is among the oldest of ``MAX_SESSIONS_WITH_NEWS``)."""
        news = self._news.get(session)
        if news is None:
            news = self._news[session] = _News()
            _forget_oldest(self._news, MAX_SESSIONS_WITH_NEWS)
        return news

    def _tell(
        self,
        ids: list[str],
        state: str,
        run: RunHandle | None,
        note: str | None = None,
        *,
        session: str | None = None,
        other_session: bool = False,
    ) -> None:
        if self._notify is None or not ids:
            return
        params = ReviewDeliveryParams.model_validate(
            {
                "hunks": ids,
                "state": state,
                "runId": run.run_id if run is not None else None,
                "sessionId": run.session_id if run is not None else session,
                "note": note,
                "otherSession": other_session,
            }
        )
        try:
            self._notify(DELIVERY_METHOD, params.to_wire())
        except Exception:  # the model's news must not depend on the client hearing this
            log.exception("could not send %s", DELIVERY_METHOD)


def _forget_oldest(table: dict[str, Any], limit: int) -> None:
    """Drop the entries first put in ``table`` until it holds ``limit``."""
    while len(table) > limit:
        del table[next(iter(table))]


def _fs(uri: str) -> str:
    return to_fs_path(uri) or uri


def _order(entry: tuple[str, tuple[PendingHunk, HunkDecision]]) -> tuple[str, int]:
    hunk = entry[1][0]
    return (hunk.path, hunk.index)


def _file_notes(params: ReviewDecisionParams) -> list[str]:
    """What happened to the whole file after its last decision (kinds of ``_file_line``)."""
    notes = []
    if params.deleted:
        notes.append("deleted")
    if params.saved and params.changed_on_save:
        notes.append("changedOnSave")
    return notes


def _file_line(path: str, kind: str, *, elsewhere: bool = False) -> str:
    if kind == "deleted":
        who = "that conversation's agent" if elsewhere else "you"
        return f"- {path}: {who} created it and the user undid all of it, so it was deleted."
    return (
        f"- {path} was saved and saving changed it (format on save or the editor's save "
        "actions): read it again before editing it."
    )


NOTE_HEADER = "The user reviewed your edits in the editor:"
OTHER_HEADER = (
    "They also reviewed edits made in another conversation in this workspace (not in "
    "this one; told so that you know what the files hold):"
)
OTHER_HEADER_ALONE = (
    "The user reviewed edits made in another conversation in this workspace (not in this "
    "one; told so that you know what the files hold):"
)
NOTE_FOOTER = "Read a file again before you edit it further."


def describe(hunk: PendingHunk, item: HunkDecision, *, elsewhere: bool = False) -> str:
    """One line (or a quoted block) for the model about one decided hunk."""
    head = f"- {hunk.path}, hunk {hunk.index} ({hunk.summary})"
    whose = "that" if elsewhere else "your"
    if item.outcome == "kept":
        return f"{head}: kept."
    if item.outcome == "undone":
        return f"{head}: undone; that region has its text from before {whose} edit again."
    if item.outcome == "pending":
        return (
            f"{head}: back in the buffer (the user undid their undo); it waits for their "
            "review again."
        )
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


_PENDING = (
    "It is in the editor's buffer, pending the user's review: the user keeps or undoes "
    "each hunk while you go on, and you will be told what they decided."
)
_ON_DISK = {
    None: "It is not saved to disk until they decide (unless they save it themselves), so "
    "commands you run see the old file meanwhile.",
    "saved": "The editor auto-saves, so it is already saved to disk and commands you run "
    "see your text; a hunk the user undoes is saved back to its old text.",
    "afterDelay": "It is not saved yet, but the editor auto-saves changed files after a short "
    "delay, so it will be on disk soon, likely before they decide: commands you run may "
    "see the old file or your text.",
    "onFocus": "It is not saved yet, but the editor auto-saves changed files when focus "
    "leaves the editor or the window, which may happen before they decide: commands you "
    "run may see the old file or your text.",
}


def _disk_state(state: AutoSave | None) -> str | None:
    if state is None or state.mode == "off":
        return None
    if state.saved:
        return "saved"
    return "afterDelay" if state.mode == "afterDelay" else "onFocus"


def pending_note(states: dict[str, AutoSave | None]) -> str:
    """The tool result's words on an edit pending review, true to what each file's
    auto-save does."""
    kinds = {path: _disk_state(state) for path, state in states.items()}
    distinct = set(kinds.values())
    if len(distinct) <= 1:
        return f"{_PENDING} {_ON_DISK[next(iter(distinct), None)]}"
    per_file = " ".join(f"{path}: {_ON_DISK[kind]}" for path, kind in kinds.items())
    return f"{_PENDING} {per_file}"


#: The note for an edit whose files the client did not report on (auto-save off).
PENDING_NOTE = pending_note({})
