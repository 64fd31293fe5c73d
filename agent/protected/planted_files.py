"""After a command: undo what it did to the protected paths (``agent.protected.paths``).

A git hook, an ``.mcp.json``, a ``.vscode/tasks.json`` or an ``AGENTS.md`` that a
command leaves behind runs or steers later, outside the sandbox. The sandbox binds the
existing ones read-only, but a sandboxed command can still:

* create one that did not exist: bwrap cannot bind a missing path without creating it
  on the host, so nothing stops the write;
* replace one by renaming a directory above it and creating a new one in its place (a
  mount point can be neither renamed nor removed; the directories above it can);
* remove or retarget a protected link (bwrap binds what the link points to).

So ``survey`` notes each protected path and its identity (device and inode; a link's
target) before the command, and ``settle`` looks again after it and:

* removes each protected path that is new there (created, or a replacement), unless it
  is one of the originals that moved with its directory (the user's own, unchanged:
  left where it now is). An original found inside a path being removed is moved back
  to its place first, so agentls never deletes what the command itself could not;
* moves an original back when the replacement in its place was removed;
* puts a removed or retargeted protected link back.

Without a sandbox (no bwrap, ``sandbox: off``, or the editor's terminal) agentls cannot
stop writes. It still removes the protected paths a command created, the same way, and
names the ones it changed in place or replaced without removing them: an edit of an
existing ``AGENTS.md`` cannot be told from an attack, and removing it would lose the
original too. The result says the command ran unsandboxed.

``settle`` runs once every process of the command is gone (the sandbox's pid namespace,
else the process group), so nothing recreates a removed path behind it. A write from
outside the command meanwhile (the user's editor saving ``.vscode/settings.json``, a
``git checkout`` in another terminal) looks the same and is undone too; agentls's own
file tools never write a protected path during a command, since they always ask first
and the loop runs nothing in parallel with a call that asks.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.agent.protected.paths import (
    NO_EXTRA,
    Extra,
    configured_hooks,
    find_protected,
    protected_entry,
)

log = logging.getLogger(__name__)

#: agentls's own directory, a protected root name.
AGENT_DIR = ".agentls"


@dataclass(frozen=True)
class _Entry:
    """What a path is: the same entry at another path is the same file moved there (with
    a directory above it). The type and a link's target are part of it because a link,
    the only original a sandboxed command can delete, frees its inode number for reuse."""

    dev: int
    ino: int
    kind: int
    #: What the path points to when it is a symbolic link.
    link: str | None


def _entry(path: str) -> _Entry | None:
    try:
        info = os.lstat(path)
        link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
    except OSError:
        return None
    return _Entry(info.st_dev, info.st_ino, stat.S_IFMT(info.st_mode), link)


@dataclass(frozen=True)
class Survey:
    """The protected paths of a workspace before a command."""

    root: str
    entries: dict[str, _Entry]
    #: What the run protects beyond the fixed names (``protected_paths.Extra``).
    extra: Extra = field(default_factory=dict)

    @property
    def paths(self) -> tuple[str, ...]:
        """Workspace-relative, shallowest first: what the sandbox binds read-only."""
        return tuple(self.entries)


def survey(root: Path | str, extra: Extra = NO_EXTRA) -> Survey:
    """Note the workspace's protected paths before a command (blocking: run it in a thread).

    Creates ``.agentls/`` first. agentls's own process may, and then the sandbox binds it
    read-only like the rest; and agentls writing its state there during a command (the
    session, the index cache) is then never taken for the command creating it.
    """
    base = os.path.realpath(root)
    with contextlib.suppress(OSError):
        os.makedirs(os.path.join(base, AGENT_DIR), exist_ok=True)
    return Survey(base, _entries(base, find_protected(base, extra=extra).paths), extra)


def _entries(base: str, rels: Sequence[str]) -> dict[str, _Entry]:
    found = {}
    for rel in rels:
        entry = _entry(os.path.join(base, rel))
        if entry is not None:
            found[rel] = entry
    return found


@dataclass
class Settled:
    """What ``settle`` did: notes for the tool result, the paths it removed, and the
    paths it put back as they were (an original moved back: its place and where it was)."""

    notes: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)

    def hides(self, rel: str) -> bool:
        """Whether ``rel`` is no longer a change of the command: it went with a removed
        path, or is one settle put back."""
        return any(
            rel == done or rel.startswith(done + "/") for done in (*self.removed, *self.restored)
        )


def settle(before: Survey, changed: Sequence[str], *, sandboxed: bool) -> Settled:
    """Undo a command's creations and replacements of protected paths (blocking).

    ``changed``: the workspace-relative paths the run's changes probe saw change. They
    name new protected files the walk cannot reach (past its cap); the walk names what
    the probe cannot see (a nested ``.git``).
    """
    return _Settler(before, changed, sandboxed).run()


def _depth(rel: str) -> tuple[int, str]:
    return rel.count("/"), rel


def _reason(rel: str, extra: Extra = NO_EXTRA, hooks: str | None = None) -> str:
    hit = protected_entry(rel, extra, hooks)
    return hit[1] if hit is not None else "it is protected"


class _Settler:
    def __init__(self, before: Survey, changed: Sequence[str], sandboxed: bool) -> None:
        self.base = before.root
        self.before = before.entries
        self.sandboxed = sandboxed
        self.hooks = configured_hooks(self.base)
        self.extra = before.extra
        self.now = _entries(self.base, find_protected(self.base, extra=self.extra).paths)
        for rel in changed:
            hit = protected_entry(rel, self.extra, self.hooks)
            if hit is not None and hit[0] not in self.now:
                entry = _entry(self._abs(hit[0]))
                if entry is not None:
                    self.now[hit[0]] = entry
        self.originals = {entry: rel for rel, entry in self.before.items()}
        #: Where each original that is not in its place now is, when known.
        self.located = {
            entry: rel
            for rel, entry in self.now.items()
            if entry in self.originals and self.originals[entry] != rel
        }
        self.result = Settled()
        self.replaced: set[str] = set()
        self.changed_in_place = sorted(
            {
                hit[0]
                for rel in changed
                if (hit := protected_entry(rel, self.extra, self.hooks)) and hit[0] in self.before
            }
        )

    def _abs(self, rel: str) -> str:
        return os.path.join(self.base, rel)

    def run(self) -> Settled:
        for rel in sorted(self.now, key=_depth):
            if self.result.hides(rel):
                continue
            entry, old = self.now[rel], self.before.get(rel)
            if entry == old or entry in self.originals:
                continue  # untouched, or an original that moved here with its directory
            if old is None:
                self._remove(rel, f"The command created {rel}, which commands may not create")
            elif self.sandboxed:
                self.replaced.add(rel)
                self._remove(rel, f"The command replaced {rel}, which commands may not change")
        if self.sandboxed:
            self._restore_originals()
        else:
            self._name_unsandboxed_changes()
        if self.result.notes and not self.sandboxed:
            self.result.notes.append(
                "The command ran without a sandbox: agentls cannot stop it from writing "
                "these files, only remove the ones it creates."
            )
        return self.result

    def _remove(self, rel: str, what: str) -> None:
        reason = _reason(rel, self.extra, self.hooks)
        rescued, stuck = self._rescue_originals_in(rel)
        head = f"{what}: {reason}."
        if stuck:
            self.result.notes.append(
                f"{head} It holds {', '.join(stuck)}, which was there before and could not "
                "be moved back, so agentls left it: check it before running git, the "
                "editor or an agent here."
            )
            return
        try:
            _delete(self._abs(rel))
        except OSError as exc:
            log.warning("could not remove %s planted by a command", rel, exc_info=True)
            self.result.notes.append(
                f"{head} agentls could not remove it ({exc.strerror or exc}): remove it "
                "before running git, the editor or an agent here."
            )
            return
        log.warning("removed %s, which a command created or replaced", rel)
        self.result.removed.append(rel)
        back = f" (after moving back {', '.join(rescued)}, which it held)" if rescued else ""
        self.result.notes.append(
            f"{head} It was removed{back}."
            if rel not in self.replaced
            else f"{head} It could do so only by renaming a directory above it; the "
            f"replacement was removed{back}."
        )

    def _rescue_originals_in(self, rel: str) -> tuple[list[str], list[str]]:
        """Move the protected originals found inside ``rel`` back to their places."""
        rescued: list[str] = []
        stuck: list[str] = []
        for inner, entry in _entries_under(self._abs(rel), rel):
            home = self.originals.get(entry)
            if home is None or home == inner:
                continue
            if self._move_back(inner, home):
                rescued.append(home)
            else:
                stuck.append(home)
        return rescued, stuck

    def _move_back(self, current: str, home: str) -> bool:
        target = self._abs(home)
        try:
            if os.path.lexists(target):
                return False
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.rename(self._abs(current), target)
        except OSError:
            log.warning("could not move %s back to %s", current, home, exc_info=True)
            return False
        self.located.pop(self.before[home], None)
        self.result.restored += [home, current]
        return True

    def _restore_originals(self) -> None:
        """Originals whose place a replacement held, and protected links that are gone."""
        for home, old in sorted(self.before.items(), key=lambda item: _depth(item[0])):
            target = self._abs(home)
            if _entry(target) is not None:
                continue
            if old.link is not None:
                if os.path.isdir(os.path.dirname(target)):
                    self._relink(home, old.link)
                continue
            if home not in self.replaced:
                continue  # moved with its directory, nothing put in its place: left there
            where = self.located.get(old)
            if where is not None and self._move_back(where, home):
                self.result.notes.append(f"The original {home} was moved back from {where}.")
            else:
                self.result.notes.append(
                    f"agentls could not find the original {home}: it moved with the "
                    "renamed directory."
                )

    def _relink(self, rel: str, link: str) -> None:
        what = (
            f"The command removed or changed the link {rel} (to {link}), which commands "
            f"may not change: {_reason(rel, self.extra, self.hooks)}."
        )
        try:
            os.symlink(link, self._abs(rel))
        except OSError as exc:
            self.result.notes.append(f"{what} agentls could not put it back ({exc.strerror}).")
            return
        self.result.restored.append(rel)
        self.result.notes.append(f"{what} The link was put back.")

    def _name_unsandboxed_changes(self) -> None:
        touched = set(self.changed_in_place)
        touched |= {rel for rel, old in self.before.items() if _entry(self._abs(rel)) != old}
        touched -= set(self.result.removed)
        if touched:
            listed = "; ".join(
                f"{rel} ({_reason(rel, self.extra, self.hooks)})"
                for rel in sorted(touched, key=_depth)
            )
            self.result.notes.append(
                f"The command changed protected files, which commands should not change: "
                f"{listed}. agentls could not prevent it: check the change."
            )


def _entries_under(path: str, rel: str) -> Iterator[tuple[str, _Entry]]:
    """(relative path, entry) of ``path`` and everything below it, links not followed."""
    stack = [(path, rel)]
    while stack:
        current, current_rel = stack.pop()
        entry = _entry(current)
        if entry is None:
            continue
        yield current_rel, entry
        if entry.kind != stat.S_IFDIR:
            continue
        try:
            with os.scandir(current) as entries:
                stack += [(item.path, f"{current_rel}/{item.name}") for item in entries]
        except OSError:
            continue


def _delete(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)
