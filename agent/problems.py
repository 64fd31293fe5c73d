"""Problems after edits: the seam between a run and whatever knows the diagnostics.

A front end lends a run a ``ProblemSource`` (``FrontEnd.problems``): the editor's own
diagnostics over LSP (server/problems.py, ``agent/diagnostics``), or language servers
agentls starts itself (the ``langservers`` package, for the CLI, ACP and editors that do
not answer). The engine knows only ``Problem``: a path, a 1-based line and column, a
severity, a message and who reported it. No LSP type crosses this seam.

``ProblemCheckingFiles`` wraps the run's FileAccess: before an edit it asks the source to
note the problems the files have now, after the edit it waits (at most
``diagnostics.wait_ms``) for the problems of the new text, and the errors and warnings
that were not there before go into the edit's tool result::

    New problems after this edit (1):
    app.py:41:9 error: "total_price" is not defined (Pylance)

Why compare at all: a file's old problems are not news to the model and would bury the one
it just made (Cline's first always-on version was rolled back for that noise); why wait
for the new text: diagnostics of the text before the edit are "ghosts" that a fix already
removed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from agentls.agent.events import Notice, Observer, null_observer
from agentls.agent.workspace import EditOutcome, FileAccess, FileChange, TextFile, WrappedFiles

log = logging.getLogger(__name__)

Severity = Literal["error", "warning", "information", "hint"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "information", "hint")
#: What an edit's result reports; information and hints are left to ``get_problems``.
REPORTED: frozenset[Severity] = frozenset({"error", "warning"})
MAX_MESSAGE_CHARS = 300


@dataclass(frozen=True)
class Problem:
    """One diagnostic, as the engine sees it."""

    path: str  # workspace-relative, with forward slashes
    line: int  # 1-based
    col: int  # 1-based
    severity: Severity
    message: str
    source: str = ""

    def render(self) -> str:
        """``app.py:41:9 error: "total_price" is not defined (Pylance)``."""
        # Checkers put details on indented lines of their own (pyright's "X is not
        # assignable to Y" under its summary): one line, the parts kept apart.
        text = "; ".join(
            " ".join(line.split()) for line in self.message.splitlines() if line.strip()
        )
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[: MAX_MESSAGE_CHARS - 1] + "…"
        who = f" ({self.source})" if self.source else ""
        return f"{self.path}:{self.line}:{self.col} {self.severity}: {text}{who}"

    @property
    def rank(self) -> int:
        return SEVERITIES.index(self.severity)


@dataclass
class FileProblems:
    """A file's problems before and after an edit, as far as the source learnt them in
    time: None is "not known" (the file was not open in the editor before, or its
    language server did not publish for that text within the wait)."""

    before: list[Problem] | None
    after: list[Problem] | None


@dataclass
class Problems:
    """What ``ProblemSource.problems`` found: the problems, the files no source checks (no
    language server for them), and the files whose problems did not arrive within the wait
    (so they are not known, which is not the same as none)."""

    problems: list[Problem] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    late: list[str] = field(default_factory=list)


class EditWatch(Protocol):
    """One edit as a source follows it, begun before the edit is applied."""

    async def after_edit(self, texts: Mapping[str, str], wait: float) -> dict[str, FileProblems]:
        """Once the edit is applied (``texts``: each file's text now): wait at most
        ``wait`` seconds for the diagnostics of those texts to settle."""

    async def close(self) -> None:
        """The edit is over (applied, refused or failed): stop following it."""


class ProblemSource(Protocol):
    """Whatever knows the diagnostics of the workspace's files (see the module's doc)."""

    def covers(self, path: str) -> bool:
        """Whether this source can learn ``path``'s problems (no wait is spent otherwise)."""

    def saw(self, path: str, text: str) -> None:
        """The run read ``path``: a source may start analysing it now, so that an edit's
        baseline is ready when the edit comes. Never blocks."""

    async def begin_edit(self, texts: Mapping[str, str | None]) -> EditWatch:
        """An edit of these files is about to be applied (``texts``: each file's text
        before it; None for a file the edit creates). Returns at once: the baseline is
        learnt while the edit is applied."""

    async def problems(self, texts: Mapping[str, str] | None, wait: float) -> Problems:
        """The current problems of these files (``texts``: their text as the run sees
        it), or of every file the source knows when None; waits at most ``wait``
        seconds for files it has not analysed yet."""

    def take_notices(self) -> list[str]:
        """What the user should hear since last asked (a language server missing or
        crashed), each said once."""


# -- which problems are new ---------------------------------------------------------------


def _key(problem: Problem) -> tuple[str, str, str]:
    return (problem.severity, problem.source, " ".join(problem.message.split()))


def _line_map(old: str, new: str) -> dict[int, int]:
    """Old 1-based line → its 1-based line in ``new``, for the lines the edit kept."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    mapped: dict[int, int] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            mapped[block.a + offset + 1] = block.b + offset + 1
    return mapped


def new_problems(
    before: Sequence[Problem], after: Sequence[Problem], old_text: str, new_text: str
) -> list[Problem]:
    """The problems of ``after`` that ``before`` did not have, most severe first.

    A problem is the same one when its severity, source and message are, and first where
    the edit moved it (a kept line moved by the lines added above it); then any problem of
    the same kind that the edit's region lost counts as moved (a message repeated inside
    the rewritten lines). What remains is new.
    """
    mapped = _line_map(old_text, new_text)
    at_place: Counter[tuple[tuple[str, str, str], int, int]] = Counter()
    anywhere: Counter[tuple[str, str, str]] = Counter()
    for problem in before:
        key = _key(problem)
        anywhere[key] += 1
        line = mapped.get(problem.line)
        if line is not None:
            at_place[(key, line, problem.col)] += 1
    left = []
    for problem in after:
        key = _key(problem)
        place = (key, problem.line, problem.col)
        if at_place[place] > 0 and anywhere[key] > 0:
            at_place[place] -= 1
            anywhere[key] -= 1
        else:
            left.append(problem)
    fresh = []
    for problem in left:
        key = _key(problem)
        if anywhere[key] > 0:
            anywhere[key] -= 1
        else:
            fresh.append(problem)
    return sorted(fresh, key=lambda p: (p.rank, p.path, p.line, p.col))


def edit_report(
    found: Mapping[str, FileProblems],
    old: Mapping[str, str | None],
    new: Mapping[str, str],
    limit: int,
) -> str:
    """What the edit's tool result adds: the new errors and warnings (at most ``limit``,
    the rest counted), or "" when there are none or nothing is known after the edit."""
    fresh: list[Problem] = []
    unknown_before: list[Problem] = []
    for path, problems in found.items():
        if problems.after is None:
            continue
        after = [p for p in problems.after if p.severity in REPORTED]
        if problems.before is None:
            unknown_before += after
            continue
        before = [p for p in problems.before if p.severity in REPORTED]
        fresh += new_problems(before, after, old.get(path) or "", new.get(path, ""))
    lines: list[str] = []
    if fresh:
        lines.append(f"New problems after this edit ({len(fresh)}):")
        lines += _listed(fresh, limit)
    if unknown_before:
        unknown_before.sort(key=lambda p: (p.rank, p.path, p.line, p.col))
        files = ", ".join(sorted({p.path for p in unknown_before}))
        lines.append(
            f"Problems in {files} after this edit ({len(unknown_before)}; its problems "
            "before the edit are not known, so some may be older):"
        )
        lines += _listed(unknown_before, max(limit - len(fresh), 1))
    return "\n".join(lines)


def _listed(problems: Sequence[Problem], limit: int) -> list[str]:
    lines = [p.render() for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"… and {len(problems) - limit} more (get_problems lists them all)")
    return lines


# -- the FileAccess that checks -----------------------------------------------------------


class ProblemCheckingFiles(WrappedFiles):
    """A FileAccess that reports the problems each applied edit introduced (see the
    module's doc). ``wait`` is ``diagnostics.wait_ms`` in seconds, ``limit``
    ``diagnostics.max_problems``; the source's notices go to ``observer`` as warnings."""

    def __init__(
        self,
        inner: FileAccess,
        source: ProblemSource,
        *,
        wait: float,
        limit: int,
        observer: Observer = null_observer,
    ) -> None:
        super().__init__(inner)
        self.source = source
        self.wait = wait
        self.limit = limit
        self.observer = observer
        #: Seconds the last applied edit's result waited for diagnostics (for the bench).
        self.last_wait = 0.0

    async def read_text(self, path: str) -> TextFile:
        text_file = await self.inner.read_text(path)
        if self.source.covers(text_file.path):
            self.source.saw(text_file.path, text_file.text)
        self._tell()
        return text_file

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        before = {
            self.rel(c.path): c.base_text
            for c in changes
            if c.new_text is not None and self.source.covers(self.rel(c.path))
        }
        if not before:
            self.last_wait = 0.0
            self._tell()
            return await self.inner.apply(changes, confirm=confirm)
        watch = await self.source.begin_edit(before)
        try:
            outcome = await self.inner.apply(changes, confirm=confirm)
            if outcome.status not in ("applied", "partial"):
                return outcome
            report = await self._report(changes, outcome, before, watch)
        finally:
            await watch.close()
            self._tell()
        return dataclasses.replace(outcome, problems=report) if report else outcome

    async def _report(
        self,
        changes: Sequence[FileChange],
        outcome: EditOutcome,
        before: Mapping[str, str | None],
        watch: EditWatch,
    ) -> str:
        after: dict[str, str] = {}
        for change in changes:
            path = self.rel(change.path)
            if path not in before or change.new_text is None:
                continue
            if outcome.status == "applied":
                after[path] = change.new_text
            else:  # only some hunks landed: what is there now is what to check
                try:
                    after[path] = (await self.inner.read_text(path)).text
                except Exception as exc:
                    log.debug("cannot read %s back after a partial edit: %s", path, exc)
        if not after:
            return ""
        started = time.monotonic()
        try:
            found = await asyncio.wait_for(watch.after_edit(after, self.wait), self.wait + 1.0)
        except TimeoutError:
            found = {}
        except Exception:  # a broken source must not fail an edit that was applied
            log.exception("checking the problems of %s failed", ", ".join(after))
            found = {}
        finally:
            self.last_wait = time.monotonic() - started
        return edit_report(found, before, after, self.limit)

    def _tell(self) -> None:
        for notice in self.source.take_notices():
            self.observer(Notice("warning", notice))
