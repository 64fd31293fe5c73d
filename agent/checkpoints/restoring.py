"""Undoing runs: the plan that puts the workspace back before a run, and applying it.

``plan_restore`` turns the record into the changes that put the workspace back before a
run (later runs of the session are undone too); ``restore`` applies them through a
FileAccess, so the user confirms them like any other agent edit, and records the restore
as a run of its own and as an entry of the session.

What a restore may do is bounded whatever the record says: it never touches a protected
path (``agent.protected.paths``), a directory, a special file or a path reached through a
symlink; it never sets setuid, setgid, sticky or world-write bits; and it changes no
file's mode without asking the user first (``confirm_modes``), ``--yes`` or not.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from pydantic import BaseModel

from agentls.agent.checkpoints.files import CheckpointingFiles, read_state
from agentls.agent.checkpoints.store import CheckpointStore, FileState, RecordLine, sha256
from agentls.agent.errors import AgentError, InvalidTargetError
from agentls.agent.protected.paths import protected_reason
from agentls.agent.sessions.entries import RestoreEntry
from agentls.agent.sessions.store import SessionWriteError
from agentls.agent.workspace import FileAccess, FileChange, is_binary
from agentls.regular_files import kind_of, open_regular

#: Asks the user about the listed items (paths, or "path: 0644 -> 0755"): True goes ahead.
Confirmer = Callable[[list[str]], Awaitable[bool]]
#: Asked before a restore writes back files that are not text (their paths): True writes.
BytesConfirmer = Confirmer
#: Asked before a restore changes any file's mode (one "path: now -> then" per file).
ModesConfirmer = Confirmer

#: The only permission bits a restore sets: never setuid, setgid, sticky or world-write.
SAFE_MODE_BITS = 0o775


class RestoreResult(BaseModel):
    run_id: str
    restore_run_id: str | None = None
    status: str  # "applied", "rejected", "nothing", "failed", "stale"
    message: str = ""
    restored: list[str] = []
    conflicts: list[str] = []
    unrestorable: list[dict[str, str]] = []


@dataclass
class RestorePlan:
    changes: list[FileChange]
    modes: dict[str, int]
    conflicts: list[str]
    unrestorable: list[dict[str, str]]
    # Binary files go back on disk directly: a text edit cannot carry their bytes.
    raw: dict[str, bytes]
    #: Of the files that go back, those where the user already undid part of the runs'
    #: changes (in the editor's review): only the rest is put back.
    partly: list[str] = field(default_factory=list)


def partly_undone(before: str, after: str, current: str) -> bool:
    """Whether ``current`` is ``after`` with some of its changes from ``before`` put back
    and nothing else changed: every region where the two differ holds one or the other.
    Putting such a file back to ``before`` loses no text but the runs'."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    now = current.splitlines(keepends=True)
    reached = {0}  # where in ``now`` the regions so far can end
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        options = [old[i1:i2]] if tag == "equal" else [old[i1:i2], new[j1:j2]]
        reached = {
            at + len(chunk)
            for at in reached
            for chunk in options
            if now[at : at + len(chunk)] == chunk
        }
        if not reached:
            return False
    return len(now) in reached


async def plan_restore(
    store: CheckpointStore, run_id: str, files: FileAccess, *, force: bool = False
) -> RestorePlan:
    runs = await asyncio.to_thread(store.runs)
    index = next((i for i, r in enumerate(runs) if r.run_id == run_id), None)
    if index is None:
        known = ", ".join(r.run_id for r in runs) or "none"
        raise InvalidTargetError(
            f"no checkpoint for run {run_id!r} (runs with checkpoints: {known})"
        )
    undone = runs[index:]
    target: dict[str, FileState] = {}
    expected: dict[str, FileState | None] = {}
    for run in undone:
        for path, before in run.before.items():
            target.setdefault(path, before)
        for path in run.before:
            expected[path] = run.after.get(path, expected.get(path))
    plan = RestorePlan([], {}, [], [], {})
    for path, before in sorted(target.items()):
        refused = await asyncio.to_thread(refusal, files, path)
        if refused:
            plan.unrestorable.append({"path": path, "reason": refused})
            continue
        mode = None if before.mode is None else before.mode & SAFE_MODE_BITS
        current = await _current(files, path)
        left = expected.get(path)
        current_sha = None if current is None else sha256(current)
        if left is not None and current_sha != left.sha and not force:
            if not await _undone_in_part(store, before, left, current):
                plan.conflicts.append(path)
                continue
            plan.partly.append(path)
        if before.sha == current_sha:
            if mode is not None and mode != await _current_mode(files, path):
                plan.modes[path] = mode
            continue
        if before.sha is None:
            if current is not None:
                plan.changes.append(FileChange(path, None, _text(current)))
            continue
        data = await asyncio.to_thread(store.get, before.sha)
        if data is None:
            reason = before.missing or "its saved copy is missing from the checkpoint store"
            plan.unrestorable.append({"path": path, "reason": reason})
            continue
        if is_binary(data) or _text(data) is None:
            plan.raw[path] = data
        else:
            base = None if current is None else _text(current)
            plan.changes.append(FileChange(path, _text(data), base))
        if mode is not None:
            plan.modes[path] = mode
    return plan


def refusal(files: FileAccess, path: str) -> str | None:
    """Why a restore leaves ``path`` alone whatever the record says, or None: a
    protected path, a path outside the workspace or reached through a symlink, or one
    that is now a directory or special file."""
    reason = protected_reason(path)
    if reason is not None:
        return f"a protected path ({reason}): a restore never touches one; put it back by hand"
    try:
        resolved = files.resolve(path)
    except AgentError as exc:
        return str(exc)
    lexical = Path(os.path.normpath(Path(os.path.realpath(files.root)) / path))
    if resolved != lexical:
        return "it is reached through a symlink, which a restore does not follow"
    try:
        info = os.lstat(lexical)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"it cannot be examined ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return f"it is {kind_of(info.st_mode)} now: a restore replaces only regular files"
    return None


async def _undone_in_part(
    store: CheckpointStore, before: FileState, after: FileState, current: bytes | None
) -> bool:
    """The file holds what the runs left there with some of it put back by the user,
    which needs the text the runs left (kept since the after states are kept too)."""
    if current is None or after.sha is None:
        return False
    old = b"" if before.sha is None else await asyncio.to_thread(store.get, before.sha)
    new = await asyncio.to_thread(store.get, after.sha)
    texts = [None if data is None else _text(data) for data in (old, new, current)]
    if any(text is None for text in texts):
        return False
    old_text, new_text, now = (text or "" for text in texts)
    return partly_undone(old_text, new_text, now)


async def preview_restore(
    store: CheckpointStore, run_id: str, files: FileAccess
) -> dict[str, list[str]]:
    """What ``restore`` of ``run_id`` would do now, without doing it."""
    plan = await plan_restore(store, run_id, files)
    restores = {c.path for c in plan.changes} | set(plan.raw) | set(plan.modes)
    return {
        "restores": sorted(restores),
        "partlyUndone": sorted(p for p in plan.partly if p in restores),
        "changedSince": sorted(plan.conflicts),
    }


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def _current_mode(files: FileAccess, path: str) -> int | None:
    _, mode = await asyncio.to_thread(read_state, files.resolve(path))
    return mode


async def _current(files: FileAccess, path: str) -> bytes | None:
    """What ``path`` holds now: the editor's buffer when open, else the disk."""
    if not await files.exists(path):
        return None
    try:
        text = await files.read_text(path)
    except InvalidTargetError:
        data, _ = await asyncio.to_thread(read_state, files.resolve(path))
        return data
    if text.lossy:
        data, _ = await asyncio.to_thread(read_state, files.resolve(path))
        return data
    return text.text.encode("utf-8")


async def restore(
    store: CheckpointStore,
    run_id: str,
    files: FileAccess,
    *,
    force: bool = False,
    confirm: bool = True,
    confirm_bytes: BytesConfirmer | None = None,
    confirm_modes: ModesConfirmer | None = None,
) -> RestoreResult:
    """Put the workspace back before ``run_id``; the restore is itself a recorded run, and
    an entry of the session, so a later run's model is told the files went back.

    Files that are not text cannot ride in the confirmed edit: with ``confirm`` their bytes
    are written back only when ``confirm_bytes`` (given their paths) says yes; without one,
    or on a no, they are listed as not restored. A mode is set back only when
    ``confirm_modes`` says yes, with or without ``confirm``: without one, or on a no, the
    file is listed with the mode it was not given."""
    plan = await plan_restore(store, run_id, files, force=force)
    if plan.raw and confirm:
        if confirm_bytes is None:
            reason = "not text, and nothing here can confirm writing its bytes back"
        elif await confirm_bytes(sorted(plan.raw)):
            reason = ""
        else:
            reason = "not text; you declined writing its bytes back"
        if reason:
            plan.unrestorable.extend({"path": path, "reason": reason} for path in sorted(plan.raw))
            for path in plan.raw:
                plan.modes.pop(path, None)
            plan.raw = {}
    result = RestoreResult(
        run_id=run_id, status="nothing", conflicts=plan.conflicts, unrestorable=plan.unrestorable
    )
    if not plan.changes and not plan.raw and not plan.modes:
        result.message = "nothing to restore"
        return result
    restore_id = "restore-" + uuid.uuid4().hex[:8]
    store.append(RecordLine(run=restore_id, kind="restore", at=time.time(), restores=run_id))
    recording = CheckpointingFiles(files, store, restore_id)
    for path in [*plan.raw, *plan.modes]:
        await recording.keep(path)
    if plan.changes:
        outcome = await recording.apply(plan.changes, confirm=confirm)
        if outcome.status == "partial":
            # Some of it landed: that much is a restore the session must know of.
            result.restore_run_id = restore_id
            result.restored = sorted(outcome.kept_hunks or outcome.paths)
        if outcome.status != "applied":
            result.status, result.message = outcome.status, outcome.message
            await _record_in_session(store, result)
            return result
    for path, data in plan.raw.items():
        await asyncio.to_thread(_write_bytes, files.resolve(path, for_write=True), data)
        after = FileState(sha=sha256(data))
        store.append(RecordLine(run=restore_id, at=time.time(), path=path, after=after))
    moded = await _restore_modes(plan, files, confirm_modes)
    result.unrestorable = list(plan.unrestorable)  # with the modes not set back
    result.restore_run_id = restore_id
    result.status = "applied"
    result.restored = sorted({c.path for c in plan.changes} | set(plan.raw) | set(moded))
    await _record_in_session(store, result)
    return result


async def _record_in_session(store: CheckpointStore, result: RestoreResult) -> None:
    """A restore that changed files becomes an entry of the session that ran them."""
    if result.restore_run_id is None:
        return
    # The entry keeps the outcome as the user was told it, field for field.
    outcome = result.model_dump(include={"status", "restored", "conflicts", "unrestorable"})
    entry = RestoreEntry(run_id=result.restore_run_id, restores=result.run_id, **outcome)
    try:
        session = await asyncio.to_thread(store.session)
        await session.append(entry)
    except SessionWriteError as exc:
        # The files went back already: say so, and that the session does not know it.
        result.message = f"{result.message} (not recorded in the session: {exc})".strip()


def _write_bytes(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # The bytes go back, the mode the file has stays (setting one is asked about apart).
    try:
        info = os.lstat(target)
        keep = info.st_mode & SAFE_MODE_BITS if stat.S_ISREG(info.st_mode) else None
    except FileNotFoundError:
        keep = None
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    tmp.write_bytes(data)
    if keep is not None:
        os.chmod(tmp, keep)
    os.replace(tmp, target)


def _mode_now(files: FileAccess, path: str) -> int | str:
    """The permission bits of ``path`` now, or why its mode cannot be set."""
    lexical = Path(os.path.realpath(files.root)) / path
    try:
        info = os.lstat(lexical)
    except FileNotFoundError:
        return "it is not on disk (an edit the editor has not saved yet)"
    except OSError as exc:
        return f"it cannot be examined ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return f"it is {kind_of(info.st_mode)} now"
    return info.st_mode & 0o7777


async def _restore_modes(
    plan: RestorePlan, files: FileAccess, confirm_modes: ModesConfirmer | None
) -> list[str]:
    """Set the planned modes back, once the user said yes to the list: the paths whose
    mode was set. The others are listed in ``plan.unrestorable`` with why."""
    pending: dict[str, tuple[int, int]] = {}
    for path, mode in sorted(plan.modes.items()):
        now = await asyncio.to_thread(_mode_now, files, path)
        if isinstance(now, str):
            plan.unrestorable.append({"path": path, "reason": f"mode {mode:04o} not set: {now}"})
        elif now != mode:
            pending[path] = (now, mode)
    if not pending:
        return []
    lines = [f"{path}: {now:04o} -> {mode:04o}" for path, (now, mode) in pending.items()]
    if confirm_modes is None:
        why = "nothing here can ask you before a mode change (chmod it by hand)"
    elif await confirm_modes(lines):
        why = ""
    else:
        why = "you declined the mode change"
    done: list[str] = []
    for path, (now, mode) in pending.items():
        failed = why or await asyncio.to_thread(_chmod_regular, files, path, mode)
        if failed:
            reason = f"mode not set back to {mode:04o} (it is {now:04o}): {failed}"
            plan.unrestorable.append({"path": path, "reason": reason})
        else:
            done.append(path)
    return done


def _chmod_regular(files: FileAccess, path: str, mode: int) -> str:
    """``chmod`` of a regular file, on the descriptor opened without following a link
    (so nothing swapped in since it was checked is changed); why not, or ""."""
    lexical = Path(os.path.realpath(files.root)) / path
    try:
        fd, _ = open_regular(lexical)
    except OSError as exc:
        return str(exc.strerror or exc)
    try:
        os.fchmod(fd, mode & SAFE_MODE_BITS)
    except OSError as exc:
        return str(exc.strerror or exc)
    finally:
        os.close(fd)
    return ""
