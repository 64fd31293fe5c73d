"""File access for tools, confined to the workspace.

``FileAccess`` is the seam between tools and storage: tools read and write through
it and never touch ``open`` themselves. ``DiskFileAccess`` (here) writes atomically
to disk; the language server substitutes one that reads the editor's buffers and
turns writes into ``workspace/applyEdit``. Every path goes through ``confine``.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import os
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentls.agent.errors import InvalidTargetError, PathTraversalError
from agentls.agent.protected.edits import protected_targets
from agentls.regular_files import NotRegularFileError, kind_of, open_regular, read_fd

BINARY_SNIFF_BYTES = 8192


def confine(root: Path, path: str, *, for_write: bool = False) -> Path:
    """Resolve ``path`` (relative to ``root``) and refuse anything outside ``root``.

    Refused: NUL bytes, ``~``, absolute paths, ``..`` escapes, symlinks (on the final
    component or on any parent) that resolve outside, and writes into ``.git/``.
    """
    if not isinstance(path, str) or path.strip() == "":
        raise PathTraversalError("empty path")
    if "\x00" in path:
        raise PathTraversalError(f"path contains a NUL byte: {path!r}")
    if path.startswith("~"):
        raise PathTraversalError(
            f"'~' paths are not allowed, use a workspace-relative path: {path}"
        )
    if os.path.isabs(path):
        raise PathTraversalError(f"absolute paths are not allowed: {path}")
    real_root = Path(os.path.realpath(root))
    # realpath resolves every symlink on the way, parents included, even when the
    # final component does not exist yet.
    resolved = Path(os.path.realpath(real_root / path))
    if resolved != real_root and real_root not in resolved.parents:
        raise PathTraversalError(f"path escapes the workspace: {path}")
    if for_write:
        rel = resolved.relative_to(real_root)
        if rel.parts and rel.parts[0] == ".git":
            raise PathTraversalError(f"writing inside .git/ is not allowed: {path}")
    return resolved


def relpath(root: Path, path: Path) -> str:
    """``path`` relative to the resolved ``root``, with forward slashes."""
    return Path(path).relative_to(Path(os.path.realpath(root))).as_posix()


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first few KiB marks a file as binary (as git does)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def read_workspace_file(path: str, target: Path, max_size: int) -> bytes:
    """The bytes of ``target`` (shown to the user and the model as ``path``), at most
    ``max_size``: a regular file only, opened without blocking or following a link (a
    command can leave a FIFO that would hang the read forever), else a ValidationError
    that says what it is."""
    try:
        fd, info = open_regular(target)
    except FileNotFoundError:
        raise InvalidTargetError(f"file not found: {path}") from None
    except NotRegularFileError:
        try:
            what = kind_of(os.lstat(target).st_mode)
        except OSError:
            what = "not a regular file"
        if what == "a directory":
            raise InvalidTargetError(f"{path} is a directory, not a file") from None
        raise InvalidTargetError(
            f"{path} is {what}, not a regular file: only regular files are read"
        ) from None
    except OSError as exc:
        raise InvalidTargetError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        if info.st_size > max_size:
            raise InvalidTargetError(
                f"{path} is {info.st_size} bytes, over the {max_size}-byte limit "
                "(indexer.max_file_size); search it with grep or search_code instead"
            )
        try:
            return read_fd(fd, max_size + 1)
        except OSError as exc:
            raise InvalidTargetError(f"cannot read {path}: {exc.strerror}") from exc
    finally:
        os.close(fd)


@dataclass(frozen=True)
class TextFile:
    """A file's text as the agent sees it."""

    path: str
    text: str
    lossy: bool = False  # non-UTF-8 bytes were replaced
    version: int | None = None  # the editor's document version, when open


@dataclass(frozen=True)
class FileChange:
    """One file the agent wants changed. ``new_text=None`` deletes the file.

    ``base_text`` is the text the change was computed from (None: the file is new);
    an implementation refuses the change as stale if the file no longer holds it.
    """

    path: str
    new_text: str | None
    base_text: str | None


EditStatus = Literal["applied", "rejected", "partial", "stale", "failed"]


@dataclass
class EditOutcome:
    """What happened to a proposed change: the truth the model is told."""

    status: EditStatus
    message: str = ""
    paths: list[str] = field(default_factory=list)
    #: For ``partial``: per path, which hunks (1-based) were kept and which dropped.
    kept_hunks: dict[str, list[int]] = field(default_factory=dict)
    dropped_hunks: dict[str, list[int]] = field(default_factory=dict)
    #: Applied to the editor's buffer while the user has yet to keep or undo it; the
    #: user's decisions arrive later, and are recorded then.
    pending: bool = False
    #: The problems the applied change introduced, as the model reads them (agent/problems.py).
    problems: str = ""


@dataclass(frozen=True)
class EditProposal:
    """A change shown to a human for confirmation."""

    changes: Sequence[FileChange]
    diff: str
    added: int
    removed: int


EditConfirmer = Callable[[EditProposal], Awaitable[bool]]


def unified_diff(path: str, old: str | None, new: str | None) -> str:
    """A ``diff -u`` style text for display and for the model."""
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = (new or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile="/dev/null" if old is None else f"a/{path}",
        tofile="/dev/null" if new is None else f"b/{path}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_stats(old: str | None, new: str | None) -> tuple[int, int]:
    """Lines added and removed between two texts (``None`` is an absent file).

    Counted from the diff's opcodes, not from the ``+``/``-`` prefixes of its text: a
    removed line that reads ``--- a`` or an added ``++i;`` looks like a file header there.
    """
    old_lines = (old or "").splitlines(keepends=True)
    new_lines = (new or "").splitlines(keepends=True)
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def change_stats(change: FileChange) -> tuple[int, int]:
    """Lines added and removed by one file change."""
    return diff_stats(change.base_text, change.new_text)


def make_proposal(changes: Sequence[FileChange]) -> EditProposal:
    diff = "".join(unified_diff(c.path, c.base_text, c.new_text) for c in changes)
    added = removed = 0
    for change in changes:
        plus, minus = change_stats(change)
        added += plus
        removed += minus
    return EditProposal(changes=list(changes), diff=diff, added=added, removed=removed)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class FileAccess(ABC):
    """Reads and writes for tools; owns confinement and remembers what the agent read.

    The read record is what protects text the user typed since the agent read a
    file: a whole-file write over a file that changed since the agent's last read
    is refused as stale.
    """

    def __init__(self, root: Path, *, max_file_size: int = 1_000_000) -> None:
        self.root = Path(os.path.realpath(root))
        self.max_file_size = max_file_size
        self._seen: dict[str, str] = {}

    # -- paths -----------------------------------------------------------------
    def resolve(self, path: str, *, for_write: bool = False) -> Path:
        return confine(self.root, path, for_write=for_write)

    def rel(self, path: str) -> str:
        """The canonical workspace-relative form of ``path`` (confined)."""
        return relpath(self.root, self.resolve(path))

    # -- the agent's view --------------------------------------------------------
    def remember_read(self, path: str, text: str) -> None:
        self._seen[self.rel(path)] = _digest(text)

    def changed_since_read(self, path: str, current: str) -> bool:
        """True when the agent read ``path`` before and it no longer holds that text."""
        seen = self._seen.get(self.rel(path))
        return seen is not None and seen != _digest(current)

    # -- primitives ----------------------------------------------------------------
    @abstractmethod
    async def read_text(self, path: str) -> TextFile:
        """The current text of ``path``. Raises ValidationError (missing, binary, too big)."""

    @abstractmethod
    async def exists(self, path: str) -> bool: ...

    @abstractmethod
    async def is_dir(self, path: str) -> bool: ...

    @abstractmethod
    async def list_dir(self, path: str) -> list[str]:
        """Entry names of a directory (directories end with ``/``), sorted."""

    @abstractmethod
    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        """Apply all ``changes`` or none. With ``confirm`` a human is asked first."""

    async def write_text(self, path: str, text: str, *, confirm: bool = False) -> EditOutcome:
        base = await self.read_text(path) if await self.exists(path) else None
        change = FileChange(self.rel(path), text, base.text if base else None)
        return await self.apply([change], confirm=confirm)

    async def delete(self, path: str, *, confirm: bool = False) -> EditOutcome:
        base = await self.read_text(path)
        return await self.apply([FileChange(self.rel(path), None, base.text)], confirm=confirm)


class WrappedFiles(FileAccess):
    """A FileAccess that adds something around another one (checkpoints, what the run
    reached): every primitive goes to ``inner``, and the read record is the inner one's,
    so staleness checks see every read whichever wrapper made it."""

    def __init__(self, inner: FileAccess) -> None:
        super().__init__(inner.root, max_file_size=inner.max_file_size)
        self.inner = inner
        self._seen = inner._seen

    def __getattr__(self, name: str) -> Any:  # confirmer, buffers... of the inner one
        return getattr(self.inner, name)

    async def read_text(self, path: str) -> TextFile:
        return await self.inner.read_text(path)

    async def exists(self, path: str) -> bool:
        return await self.inner.exists(path)

    async def is_dir(self, path: str) -> bool:
        return await self.inner.is_dir(path)

    async def list_dir(self, path: str) -> list[str]:
        return await self.inner.list_dir(path)

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        return await self.inner.apply(changes, confirm=confirm)


class DiskFileAccess(FileAccess):
    """Files on disk: atomic writes, blocking work in threads.

    ``confirmer`` asks a human about a change when ``confirm`` is set; without one
    a change that needs confirmation is refused (nobody can be asked).
    """

    def __init__(
        self,
        root: Path,
        *,
        max_file_size: int = 1_000_000,
        confirmer: EditConfirmer | None = None,
    ) -> None:
        super().__init__(root, max_file_size=max_file_size)
        self.confirmer = confirmer
        self._lock = asyncio.Lock()

    async def read_text(self, path: str) -> TextFile:
        target = self.resolve(path)
        return await asyncio.to_thread(self._read_sync, path, target)

    def _read_sync(self, path: str, target: Path) -> TextFile:
        data = read_workspace_file(path, target, self.max_file_size)
        if is_binary(data):
            raise InvalidTargetError(f"{path} is a binary file; only text files can be read")
        try:
            text, lossy = data.decode("utf-8"), False
        except UnicodeDecodeError:
            text, lossy = data.decode("utf-8", errors="replace"), True
        # Universal newlines would hide CRLF from the patch engine: keep the text as is.
        return TextFile(relpath(self.root, target), text, lossy)

    async def exists(self, path: str) -> bool:
        target = self.resolve(path)
        return await asyncio.to_thread(target.exists)

    async def is_dir(self, path: str) -> bool:
        target = self.resolve(path)
        return await asyncio.to_thread(target.is_dir)

    async def list_dir(self, path: str) -> list[str]:
        target = self.resolve(path)

        def scan() -> list[str]:
            try:
                with os.scandir(target) as entries:
                    names = []
                    for entry in entries:
                        try:
                            names.append(entry.name + ("/" if entry.is_dir() else ""))
                        except OSError:
                            continue
                    return sorted(names)
            except FileNotFoundError:
                raise InvalidTargetError(f"directory not found: {path}") from None
            except NotADirectoryError:
                raise InvalidTargetError(f"{path} is a file, not a directory") from None

        return await asyncio.to_thread(scan)

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        if not changes:
            return EditOutcome("applied", "nothing to change")
        targets = [self.resolve(c.path, for_write=True) for c in changes]
        paths = [relpath(self.root, t) for t in targets]
        # One change set at a time, so two parallel edits never interleave their
        # stale-check and their write.
        async with self._lock:
            stale = await asyncio.to_thread(self._stale_paths, changes, targets)
            refused = await self.refused_or_stale(changes, paths, stale, confirm=confirm)
            if refused is not None:
                return refused
            try:
                await asyncio.to_thread(self._commit, changes, targets)
            except OSError as exc:
                return EditOutcome("failed", f"write failed: {exc}; nothing was changed", paths)
        for change in changes:
            if change.new_text is not None:
                self.remember_read(change.path, change.new_text)
        return EditOutcome("applied", "", paths)

    async def refused_or_stale(
        self, changes: Sequence[FileChange], paths: list[str], stale: list[str], *, confirm: bool
    ) -> EditOutcome | None:
        """Why ``changes`` must not be written (``stale`` paths, or the human said no),
        or None to go on."""
        if stale:
            return EditOutcome(
                "stale",
                f"{', '.join(stale)} changed since the change was computed; read it again",
                paths,
            )
        return await self.refused(changes, paths) if confirm else None

    async def refused(self, changes: Sequence[FileChange], paths: list[str]) -> EditOutcome | None:
        """Ask the human about ``changes``: None when confirmed, else the rejection."""
        if self.confirmer is None:
            protected = protected_targets(paths)
            what = (
                "this change to a protected file (" + "; ".join(protected) + ")"
                if protected
                else "this change"
            )
            return EditOutcome(
                "rejected",
                f"{what} needs confirmation and nobody can be asked (no terminal); nothing "
                "was changed",
                paths,
            )
        if not await self.confirmer(make_proposal(changes)):
            return EditOutcome("rejected", "the user rejected this change", paths)
        return None

    def _stale_paths(self, changes: Sequence[FileChange], targets: Sequence[Path]) -> list[str]:
        stale = []
        for change, target in zip(changes, targets, strict=True):
            if change.base_text is None:
                if target.exists():
                    stale.append(change.path)
                continue
            try:
                current = self._read_sync(change.path, target).text
            except InvalidTargetError:
                stale.append(change.path)
                continue
            if current != change.base_text:
                stale.append(change.path)
        return stale

    def _commit(self, changes: Sequence[FileChange], targets: Sequence[Path]) -> None:
        """Write every new file to a temp file first, then rename them all.

        A failure before the renames leaves every file untouched; the renames
        themselves are atomic per file.
        """
        staged: list[tuple[Path, Path]] = []
        try:
            for change, target in zip(changes, targets, strict=True):
                if change.new_text is None:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                mode = target.stat().st_mode & 0o7777 if target.exists() else None
                fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
                try:
                    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                        handle.write(change.new_text)
                        handle.flush()
                        os.fsync(handle.fileno())
                    if mode is not None:
                        os.chmod(tmp, mode)
                except BaseException:
                    os.unlink(tmp)
                    raise
                staged.append((Path(tmp), target))
        except BaseException:
            for staged_tmp, _ in staged:
                staged_tmp.unlink(missing_ok=True)
            raise
        for staged_tmp, target in staged:
            os.replace(staged_tmp, target)
        for change, target in zip(changes, targets, strict=True):
            if change.new_text is None:
                target.unlink(missing_ok=True)
