"""Listing candidate files and reading one file into a ``FileInfo``.

In a git work tree ``git ls-files`` lists files several times faster than any walk
(it reuses git's own index and untracked cache); elsewhere an ``os.scandir`` walk
prunes excluded and ignored directories as it goes. Every per-file problem is a
skip with a reason, never an exception.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agentls.indexer.ignore import IgnoreRules
from agentls.indexer.index import FileInfo
from agentls.indexer.languages import language_of, split_ext
from agentls.indexer.safe_git import run_git
from agentls.regular_files import NotRegularFileError, open_regular

BINARY_SNIFF_BYTES = 8192

# Reasons a candidate is not indexed as text.
BINARY = "binary"
TOO_LARGE = "too_large"
MISSING = "missing"
ERROR = "error"
OUTSIDE = "outside_root"
NOT_FILE = "not_a_file"
#: Skipped files that still exist as files: find_files lists them, watchers report them.
KEPT_AS_OTHER = frozenset({BINARY, TOO_LARGE})


@dataclass(slots=True)
class Scanned:
    """The outcome of reading one candidate: an info (and its bytes) or a skip reason."""

    path: str
    info: FileInfo | None = None
    data: bytes | None = None
    skipped: str | None = None


def _read(full: str, size: int, max_file_size: int) -> bytes | None:
    """The file's bytes, or None when binary: the sniffed head is read first, so a large
    binary costs one small read. Raw ``os.read`` skips the buffered-file machinery.
    Opened without blocking or following a link: a FIFO a command swapped in after the
    stat is refused (``NotRegularFileError``) instead of hanging the index."""
    fd, _ = open_regular(full)
    try:
        head = os.read(fd, BINARY_SNIFF_BYTES)
        if b"\x00" in head:
            return None
        if len(head) < BINARY_SNIFF_BYTES:
            return head
        parts = [head]
        got = len(head)
        while got <= max_file_size:
            chunk = os.read(fd, max(size - got + 1, 65536))
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def inside(real_root: str, real_path: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root + os.sep)


def scan_file(real_root: str, rel: str, max_file_size: int) -> Scanned:
    """Stat and read one file. Never raises for a problem with the file itself."""
    full = f"{real_root}/{rel}"  # not os.path.join: this runs once per file of the tree
    try:
        st = os.lstat(full)
        target = full
        if stat.S_ISLNK(st.st_mode):
            # A link is indexed under its own path when it stays inside the root;
            # links that leave the root are never followed.
            target = os.path.realpath(full)
            if not inside(real_root, target):
                return Scanned(rel, skipped=OUTSIDE)
            st = os.stat(target)
        if not stat.S_ISREG(st.st_mode):
            return Scanned(rel, skipped=NOT_FILE)
        if st.st_size > max_file_size:
            return Scanned(rel, skipped=TOO_LARGE)
        data = _read(target, st.st_size, max_file_size)
    except NotRegularFileError:
        return Scanned(rel, skipped=NOT_FILE)
    except FileNotFoundError:
        # Gone mid-walk, a broken symlink, or a tracked file deleted from the work tree.
        return Scanned(rel, skipped=MISSING)
    except OSError:
        return Scanned(rel, skipped=ERROR)
    if data is None:
        return Scanned(rel, skipped=BINARY)
    if len(data) > max_file_size:
        return Scanned(rel, skipped=TOO_LARGE)
    name = rel.rpartition("/")[2]
    ext = split_ext(name)
    info = FileInfo(rel, len(data), ext, language_of(name, ext), line_count(data), st.st_mtime_ns)
    return Scanned(rel, info, data)


def line_count(data: bytes) -> int:
    """Lines as an editor counts them: a last line without a newline counts too."""
    lines = data.count(b"\n")
    if data and data[-1] != 10:
        lines += 1
    return lines


def is_file(real_root: str, rel: str) -> bool:
    """An existing regular file, or a link to one that stays inside the root."""
    full = os.path.join(real_root, rel)
    try:
        st = os.lstat(full)
        if stat.S_ISLNK(st.st_mode):
            if not inside(real_root, os.path.realpath(full)):
                return False
            st = os.stat(full)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode)


def _git_list(real_root: str, args: list[str], under: str) -> list[str] | None:
    # The repository's config must not run anything here (its fsmonitor hook would run on
    # this listing, before anybody trusted the folder).
    cmd = ["ls-files", "-z", *args]
    if under:
        cmd += ["--", under]
    try:
        proc = run_git(cmd, cwd=real_root, env={"GIT_LITERAL_PATHSPECS": "1"}, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    if not proc.ok:
        return None
    return [os.fsdecode(p) for p in proc.stdout.split(b"\0") if p]


def git_candidates(real_root: str, rules: IgnoreRules, under: str = "") -> list[str] | None:
    """Files git would show (tracked + untracked, not ignored), or None outside a work tree.

    Tracked files that a ``.gitignore`` matches are dropped too, so that the list
    equals what ``IgnoreRules`` decides for watcher events.
    """
    # Only at the top of a work tree: a folder inside some other repository (or
    # ignored by it) would otherwise list as empty.
    if not os.path.exists(os.path.join(real_root, ".git")) or shutil.which("git") is None:
        return None
    listed = _git_list(real_root, ["-co", "--exclude-standard"], under)
    if listed is None:
        return None
    ignored_tracked = _git_list(real_root, ["-ci", "--exclude-standard"], under) or []
    drop = set(ignored_tracked)
    out: list[str] = []
    for rel in listed:
        # "dir/" entries are nested repositories; their content is not ours.
        if rel.endswith("/") or rel in drop or rules.excluded_by_settings(rel):
            continue
        out.append(rel)
    return sorted(set(out))


def walk_candidates(real_root: str, rules: IgnoreRules, under: str = "") -> list[str]:
    """An ``os.scandir`` walk from ``under`` pruning excluded and ignored directories."""
    if under and rules.ignored(under, is_dir=True):
        return []
    out: list[str] = []
    stack = [under]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(os.path.join(real_root, rel_dir) if rel_dir else real_root) as it:
                entries = list(it)
        except OSError:
            continue
        keep_files = rules.keeps_every_file_in(rel_dir)
        prefix = f"{rel_dir}/" if rel_dir else ""
        for entry in entries:
            name = entry.name
            rel = prefix + name
            try:
                # Directory links are not followed: no cycles, no escapes, like git.
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if not rules.excluded_dir(name, rel) and not rules.gitignored(rel, True):
                    stack.append(rel)
            elif keep_files or (
                not rules.excluded_file(name, rel) and not rules.gitignored(rel, False)
            ):
                out.append(rel)
    out.sort()
    return out


def list_candidates(
    root: Path | str, rules: IgnoreRules, *, use_git: bool = True, under: str = ""
) -> tuple[list[str], str]:
    """Candidate files below ``under`` (``""``: everything) and the method used."""
    real_root = os.path.realpath(root)
    if use_git:
        listed = git_candidates(real_root, rules, under)
        if listed is not None:
            return listed, "git"
    return walk_candidates(real_root, rules, under), "walk"
