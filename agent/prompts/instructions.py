"""Project instructions: the ``AGENTS.md`` files a run gives the model, read the way Codex
reads them.

What is read, in order (later text wins where instructions disagree):

1. ``AGENTS.md`` in the user config directory: the user's own, for every project;
2. from the workspace root down to the directory the run works in (the active file's
   folder in an editor, the current directory in a terminal), at most one file per
   directory: ``AGENTS.override.md`` when a folder has one, else ``AGENTS.md``, else
   ``CLAUDE.md``. A stray ``CLAUDE.md`` never hides an ``AGENTS.md`` beside it;
3. when none of those exist anywhere on that path, ``.github/copilot-instructions.md``;
4. ``.github/instructions/*.instructions.md`` whose ``applyTo`` glob matches a file the
   run touches (named by the prompt, the active file, or later a file a tool reads or
   edits).

Everything shares one budget (``context.instructions_bytes``, 32 KiB by default): files
are taken in the order above until it is spent; the file that crosses it is cut at a
line and a note says what was cut or left out.

During the run, the first time a tool reads or edits a file under a directory with an
instruction file not yet given (or a file an ``applyTo`` matches), that file joins the
conversation as a new message, appended, so the prompt already sent stays byte-for-byte
the same and the provider's prompt cache keeps working.

No instruction file is read inside a folder the index leaves out (``node_modules``,
``.venv``, ``build``, ``dist`` and the other fixed excludes, and ``indexer.exclude_dirs``),
however the run reaches it: those folders hold what installs and builds write, and a
package install must not be able to leave instructions there that outlive the run. (A
sandboxed command that creates an instruction file anywhere else has it removed: they are
protected paths, searched for everywhere but in those same folders.)

Instruction files are text for the model, in any folder, trusted or not: nothing in them
changes approvals, tools, the model endpoint or the sandbox.
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from agentls.agent.config.userdirs import user_config_dir
from agentls.agent.errors import AgentError
from agentls.agent.prompts.front_matter import FrontMatterError, split_front_matter
from agentls.agent.workspace import EditOutcome, FileAccess, FileChange, TextFile, WrappedFiles
from agentls.regular_files import NotRegularFileError, read_regular

if TYPE_CHECKING:
    from agentls.agent.config.models import IndexerConfig

log = logging.getLogger(__name__)

#: Whether a directory (its name, its workspace-relative path) is one the index leaves out.
ExcludedDir = Callable[[str, str], bool]

#: Per directory, the first of these that exists is that directory's file.
DIRECTORY_FILES = ("AGENTS.override.md", "AGENTS.md", "CLAUDE.md")
COPILOT_FILE = ".github/copilot-instructions.md"
SCOPED_DIR = ".github/instructions"
SCOPED_SUFFIX = ".instructions.md"
USER_FILE = "AGENTS.md"
DEFAULT_BUDGET = 32 * 1024
HEADING = "## Project instructions"

Kind = Literal["user", "directory", "fallback", "scoped"]


@dataclass(frozen=True)
class InstructionFile:
    """One file given to the model."""

    #: Workspace-relative, ``/``-separated; the user's own file is ``~/AGENTS.md``-style.
    label: str
    text: str
    kind: Kind
    #: For a scoped file: its ``applyTo`` globs.
    apply_to: tuple[str, ...] = ()
    #: It was cut to fit the budget.
    cut: bool = False

    def block(self) -> str:
        """How the model sees it: a heading naming the file, then its text."""
        return f"### {self.label}\n{self.text.rstrip()}"


@dataclass
class Instructions:
    """The files of one run and what the user should hear about the others."""

    files: list[InstructionFile] = field(default_factory=list)
    #: One line per file that could not be used or was cut (names the file).
    problems: list[str] = field(default_factory=list)

    @property
    def labels(self) -> list[str]:
        return [f.label for f in self.files]

    def render(self) -> str:
        """The block for the system prompt; '' when there is nothing."""
        if not self.files:
            return ""
        blocks = "\n\n".join(f.block() for f in self.files)
        return (
            f"{HEADING}\nThe files below are the project's instructions for coding agents. "
            "Follow them; where they disagree, the later file wins.\n\n" + blocks
        )


@dataclass
class _Budget:
    left: int
    problems: list[str]

    def take(self, label: str, text: str) -> tuple[str, bool] | None:
        """``text`` as much as fits: (text, cut), or None when nothing is left."""
        size = len(text.encode("utf-8"))
        if size <= self.left:
            self.left -= size
            return text, False
        if self.left <= 0:
            self.problems.append(
                f"{label} was left out: the instructions budget "
                "(context.instructions_bytes) was spent"
            )
            return None
        kept = text.encode("utf-8")[: self.left].decode("utf-8", "ignore")
        if "\n" in kept:
            kept = kept[: kept.rindex("\n") + 1]
        self.problems.append(
            f"{label} was cut after {len(kept.encode('utf-8'))} of {size} bytes to fit the "
            "instructions budget (context.instructions_bytes)"
        )
        self.left = 0
        note = f"\n[agentls: the rest of {label} was cut to fit the instructions budget]"
        return kept + note, True


def read_instruction_file(path: Path, label: str, problems: list[str]) -> str | None:
    """A file's text, or None with a problem naming it (binary, not UTF-8, unreadable)."""
    try:
        # Links are followed here as before (AGENTS.md -> CLAUDE.md), but a FIFO or
        # device at the end is refused instead of blocking the run forever.
        data = read_regular(os.path.realpath(path))
    except NotRegularFileError as exc:
        problems.append(f"{label} is not used: {exc}")
        return None
    except OSError as exc:
        problems.append(f"{label} could not be read: {exc.strerror or exc}")
        return None
    if b"\x00" in data[:8192]:
        problems.append(f"{label} is not used: it is a binary file")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(f"{label} is not used: it is not UTF-8 text (line {line})")
        return None


def directory_file(folder: Path) -> Path | None:
    """The instruction file of one directory, if it has one."""
    for name in DIRECTORY_FILES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def run_directory(root: Path, hint: Path | None) -> Path:
    """Where the run works: ``hint`` (a file's folder, the current directory) when it lies
    inside the workspace, else the workspace root."""
    root = root.resolve()
    if hint is None:
        return root
    folder = hint.resolve()
    if folder.is_file():
        folder = folder.parent
    if folder == root or root in folder.parents:
        return folder
    return root


def _chain(root: Path, folder: Path, excluded: ExcludedDir) -> list[Path]:
    """The directories from ``root`` down to ``folder``, both included, that are not in
    (or under) a folder the index leaves out."""
    chain = [folder]
    while chain[-1] != root:
        chain.append(chain[-1].parent)
    reached = []
    for directory in reversed(chain):
        if directory != root and excluded(directory.name, _label(root, directory)):
            break
        reached.append(directory)
    return reached


def excluded_dirs(root: Path, indexer: IndexerConfig | None = None) -> ExcludedDir:
    """The index's rule for leaving a directory of ``root`` out (its fixed excludes and
    ``indexer.exclude_dirs``): one list decides for both."""
    from agentls.agent.config.models import IndexerConfig
    from agentls.agent.indexing import workspace_rules

    return workspace_rules(root, indexer if indexer is not None else IndexerConfig()).excluded_dir


def _label(root: Path, path: Path) -> str:
    return path.resolve().relative_to(root.resolve()).as_posix()


@dataclass(frozen=True)
class ScopedFile:
    path: Path
    label: str
    apply_to: tuple[str, ...]
    body: str


def scoped_files(root: Path, problems: list[str]) -> list[ScopedFile]:
    """``.github/instructions/*.instructions.md`` with their ``applyTo`` globs."""
    folder = root / SCOPED_DIR
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"*{SCOPED_SUFFIX}")):
        label = _label(root, path)
        text = read_instruction_file(path, label, problems)
        if text is None:
            continue
        try:
            meta, body = split_front_matter(text)
        except FrontMatterError as exc:
            problems.append(f"{label}: {exc}")
            continue
        apply_to = meta.get("applyTo")
        globs = apply_to if isinstance(apply_to, list) else str(apply_to or "").split(",")
        patterns = tuple(g.strip() for g in globs if str(g).strip())
        if not patterns:
            problems.append(f"{label} is not used: it has no applyTo glob in its front matter")
            continue
        found.append(ScopedFile(path, label, patterns, body))
    return found


def matches(patterns: Iterable[str], relative: str) -> bool:
    """Whether a workspace-relative path matches one of the ``applyTo`` globs (``**``
    spans directories, a pattern without ``/`` matches the file name anywhere)."""
    posix = PurePosixPath(relative)
    for pattern in patterns:
        if pattern in ("**", "**/*", "*"):
            return True
        if "/" not in pattern and fnmatch.fnmatchcase(posix.name, pattern):
            return True
        if _glob(pattern.removeprefix("/"), relative):
            return True
    return False


def _glob(pattern: str, relative: str) -> bool:
    """A glob where ``*`` stays within a directory and ``**`` spans directories (as
    ``applyTo`` means it; ``fnmatch``'s ``*`` would cross ``/``)."""

    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += ".*"
            i += 2
        elif pattern[i] == "*":
            regex += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            regex += "[^/]"
            i += 1
        else:
            regex += re.escape(pattern[i])
            i += 1
    return re.fullmatch(regex, relative) is not None


def discover(
    root: Path,
    *,
    run_dir: Path | None = None,
    touched: Sequence[str] = (),
    budget: int = DEFAULT_BUDGET,
    user_dir: Path | None = None,
    indexer: IndexerConfig | None = None,
) -> tuple[Instructions, InstructionTracker]:
    """The run's instruction files, and the tracker that adds the others as the run goes.
    ``indexer`` (the run's config) says which folders are left out; the defaults when None."""
    root = root.resolve()
    excluded = excluded_dirs(root, indexer)
    result = Instructions()
    spend = _Budget(budget, result.problems)
    user_file = (user_dir if user_dir is not None else user_config_dir()) / USER_FILE
    if user_file.is_file():
        text = read_instruction_file(user_file, "your AGENTS.md", result.problems)
        taken = spend.take("your AGENTS.md", text) if text is not None else None
        if taken is not None:
            result.files.append(InstructionFile("your AGENTS.md", taken[0], "user", cut=taken[1]))
    folder = run_directory(root, run_dir)
    given_dirs: set[Path] = set()
    for directory in _chain(root, folder, excluded):
        path = directory_file(directory)
        given_dirs.add(directory)
        if path is None:
            continue
        _add(result, spend, root, path, "directory")
    if not any(f.kind == "directory" for f in result.files):
        copilot = root / COPILOT_FILE
        if copilot.is_file():
            _add(result, spend, root, copilot, "fallback")
    scoped = scoped_files(root, result.problems)
    tracker = InstructionTracker(root, given_dirs, scoped, spend, excluded)
    for item in tracker.scoped_for(touched):
        result.files.append(item)
    return result, tracker


def _add(result: Instructions, spend: _Budget, root: Path, path: Path, kind: Kind) -> None:
    label = _label(root, path)
    text = read_instruction_file(path, label, result.problems)
    taken = spend.take(label, text) if text is not None else None
    if taken is not None:
        result.files.append(InstructionFile(label, taken[0], kind, cut=taken[1]))


class InstructionTracker:
    """The instruction files a run has not given yet, handed over once each as the run's
    tools reach files they apply to."""

    def __init__(
        self,
        root: Path,
        given_dirs: set[Path],
        scoped: list[ScopedFile],
        budget: _Budget,
        excluded: ExcludedDir,
    ) -> None:
        self.root = root
        self._excluded = excluded
        self._given_dirs = set(given_dirs)
        self._scoped = list(scoped)
        self._budget = budget
        self._pending: list[InstructionFile] = []
        #: Every file handed to the model so far by this tracker.
        self.given: list[InstructionFile] = []

    @property
    def problems(self) -> list[str]:
        return self._budget.problems

    def scoped_for(self, paths: Iterable[str]) -> list[InstructionFile]:
        """The scoped files that apply to ``paths`` and were not given yet (now given)."""
        out = []
        paths = list(paths)
        for scoped in list(self._scoped):
            if any(matches(scoped.apply_to, p) for p in paths):
                self._scoped.remove(scoped)
                taken = self._budget.take(scoped.label, scoped.body)
                if taken is not None:
                    out.append(
                        InstructionFile(
                            scoped.label, taken[0], "scoped", scoped.apply_to, cut=taken[1]
                        )
                    )
        self.given.extend(out)
        return out

    def touch(self, relative: str) -> None:
        """A tool read or edited ``relative`` (workspace-relative)."""
        target = (self.root / relative).resolve()
        folder = target.parent
        if folder != self.root and self.root not in folder.parents:
            return
        for directory in _chain(self.root, folder, self._excluded):
            if directory in self._given_dirs:
                continue
            self._given_dirs.add(directory)
            path = directory_file(directory)
            if path is None:
                continue
            label = _label(self.root, path)
            text = read_instruction_file(path, label, self._budget.problems)
            taken = self._budget.take(label, text) if text is not None else None
            if taken is not None:
                item = InstructionFile(label, taken[0], "directory", cut=taken[1])
                self._pending.append(item)
                self.given.append(item)
        self._pending.extend(self.scoped_for([relative]))

    def include(self, relative: str) -> list[InstructionFile]:
        """Give the instruction file ``relative`` (from an earlier run of the session)
        with the first message: its folder's file, or a scoped file, if it still exists."""
        path = PurePosixPath(relative)
        if path.name in DIRECTORY_FILES:
            self.touch(str(path.parent / "_"))
        else:
            self.touch(relative)
        files, self._pending = self._pending, []
        return files

    def take_message(self) -> str | None:
        """What joined since the last call, as one message for the model, or None."""
        if not self._pending:
            return None
        files, self._pending = self._pending, []
        names = ", ".join(f.label for f in files)
        blocks = "\n\n".join(f.block() for f in files)
        return (
            f"[agentls: instructions for the files you are working on ({names}); follow "
            f"them as you do the project's instructions]\n\n{blocks}"
        )


class ReachedFiles(WrappedFiles):
    """The run's file access, telling the tracker each file a tool reads or edits (the
    instruction files of its folders then join the conversation)."""

    def __init__(self, inner: FileAccess, tracker: InstructionTracker) -> None:
        super().__init__(inner)
        self.tracker = tracker

    def _reached(self, path: str) -> None:
        # A path outside the workspace is the tool's to report.
        with contextlib.suppress(AgentError):
            self.tracker.touch(self.rel(path))

    async def read_text(self, path: str) -> TextFile:
        text = await self.inner.read_text(path)
        self._reached(path)
        return text

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        for change in changes:
            self._reached(change.path)
        return await self.inner.apply(changes, confirm=confirm)
