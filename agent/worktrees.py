"""Sessions in worktrees of their own: a run that works on a copy of the repository, on
its own branch, while the user keeps editing theirs.

A worktree starts from the user's current state: HEAD plus their uncommitted changes,
untracked files included (those git ignores are not), recorded as one "base" commit
made with a temporary index, so the user's own index and stash are not touched. It lives
under the repository's git directory (``<git dir>/agentls-worktrees/<name>``), where no
editor, index or search of the user's tree sees it, on the branch ``agentls/<name>``.

When a run in it ends, its changes are committed on that branch. The user then applies
them to their tree (the diff from the base, checked first: a file the user changed since
in a way that conflicts is reported and nothing is written), keeps the branch, or
discards the worktree (refused while it holds changes nobody committed).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentls.agent.errors import AgentError
from agentls.indexer.safe_git import GitResult, run_git

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig
    from agentls.agent.workspace import FileAccess, FileChange

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
BRANCH_PREFIX = "agentls/"


class WorktreeError(AgentError):
    """A worktree that cannot be made, found, applied or discarded; says why."""


@dataclass
class Worktree:
    name: str
    path: str
    branch: str
    #: The commit it started from: the user's HEAD plus their uncommitted changes.
    base: str
    created: float
    #: The user's HEAD when it was made.
    head: str

    @property
    def folder(self) -> Path:
        return Path(self.path)


@dataclass
class WorktreeStatus:
    worktree: Worktree
    #: Files changed on its branch since the base, with lines added and removed.
    files: int
    added: int
    removed: int
    #: It has changes not committed on its branch (a run in progress, or one cut short).
    uncommitted: bool
    exists: bool


def _run(
    folder: Path | str | None,
    *args: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    config: dict[str, str] | None = None,
) -> GitResult:
    """git the safe way (``indexer.safe_git``): after a run, the worktree holds whatever
    its sandboxed commands wrote, hooks and ``.gitattributes`` included."""
    try:
        return run_git(args, cwd=folder, input=input, env=env, config=config)
    except OSError as exc:
        raise WorktreeError(f"git could not be started: {exc.strerror or exc}") from None


def _git(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    config: dict[str, str] | None = None,
    check: bool = True,
) -> str:
    done = _run(root, *args, env=env, config=config)
    if check and not done.ok:
        raise WorktreeError(f"git {args[0]}: {done.last_error() or 'failed'}")
    return done.out


def repository_root(folder: Path) -> Path:
    """The top of the git repository holding ``folder``; WorktreeError when there is none."""
    done = _run(folder, "rev-parse", "--show-toplevel") if folder.is_dir() else None
    if done is None or not done.ok:
        raise WorktreeError(f"{folder} is not in a git repository: worktrees need one")
    return Path(done.out.strip())


def _home(root: Path) -> Path:
    common = Path(_git(root, "rev-parse", "--git-common-dir").strip())
    if not common.is_absolute():
        common = root / common
    return common.resolve() / "agentls-worktrees"


def _record(root: Path, name: str) -> Path:
    return _home(root) / f"{name}.json"


def _write_record(root: Path, worktree: Worktree) -> None:
    """Through a temporary file: a listing (which takes no lock) never reads half of it."""
    target = _record(root, worktree.name)
    fd, scratch = tempfile.mkstemp(prefix=".record-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(asdict(worktree)))
        os.replace(scratch, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise


@contextlib.contextmanager
def _changing(root: Path) -> Iterator[None]:
    """Held while worktrees of ``root`` are added or removed. git does not make two
    ``worktree add`` at once safe (one reads the other's half-written record and fails),
    and a ``worktree prune`` after a failed add could take another's record with it.
    A lock file, not a threading lock: the server's runs, a CLI and an ACP agent may all
    change the same repository's worktrees; flock also excludes two threads here, each
    opening the file anew."""
    home = _home(root)
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# Leaves out agentls's own folder. A wildcard, not the literal ".agentls": git refuses a
# literal pathspec that names an ignored path (the usual case: .agentls/ in .gitignore),
# while a wildcard one is only matched against what git would add anyway.
NOT_AGENTLS = ":(exclude).agentl[s]/*"


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise WorktreeError(
            f"{name!r} cannot name a worktree: use letters, digits, '.', '_' and '-' "
            "(at most 64, starting with a letter or digit)"
        )
    return name


def snapshot(root: Path) -> tuple[str, str]:
    """(HEAD, a commit of the working tree as it is now, untracked files included)."""
    head = _git(root, "rev-parse", "HEAD").strip()
    with tempfile.TemporaryDirectory() as scratch:
        index = str(Path(scratch) / "index")
        env = {"GIT_INDEX_FILE": index}
        _git(root, "read-tree", head, env=env)
        _git(root, "add", "-A", "--", ".", NOT_AGENTLS, env=env)
        tree = _git(root, "write-tree", env=env).strip()
    if tree == _git(root, "rev-parse", f"{head}^{{tree}}").strip():
        return head, head
    identity = {
        "GIT_AUTHOR_NAME": "agentls",
        "GIT_AUTHOR_EMAIL": "agentls@localhost",
        "GIT_COMMITTER_NAME": "agentls",
        "GIT_COMMITTER_EMAIL": "agentls@localhost",
    }
    base = _git(
        root,
        "commit-tree",
        tree,
        "-p",
        head,
        "-m",
        "agentls: your uncommitted changes",
        env=identity,
    ).strip()
    return head, base


def create(folder: Path, name: str) -> Worktree:
    """A new worktree ``name`` from the user's current state; WorktreeError says why not."""
    root = repository_root(folder)
    check_name(name)
    with _changing(root):
        return _create(root, name)


def _create(root: Path, name: str) -> Worktree:
    branch = BRANCH_PREFIX + name
    if _git(root, "branch", "--list", branch).strip():
        raise WorktreeError(f"the branch {branch} exists already: choose another name")
    dirty_submodules = [
        line
        for line in _git(root, "submodule", "status", check=False).splitlines()
        if line.startswith("+")
    ]
    if dirty_submodules:
        raise WorktreeError(
            "a submodule is not at the commit its repository records ("
            + dirty_submodules[0].split()[1]
            + "): commit or reset it first; a worktree would not carry its state"
        )
    head, base = snapshot(root)
    home = _home(root)
    home.mkdir(parents=True, exist_ok=True)
    path = home / name
    if path.exists():
        raise WorktreeError(f"a worktree folder {path} exists already")
    worktree = Worktree(name, str(path), branch, base, time.time(), head)
    try:
        _git(root, "worktree", "add", "-q", "-b", branch, str(path), base)
        _write_record(root, worktree)
    except (WorktreeError, OSError) as exc:
        # A half-made worktree (a full disk, a file too large) leaves nothing behind, so
        # the same name can be tried again: its folder, git's record of it, the branch.
        shutil.rmtree(path, ignore_errors=True)
        _record(root, name).unlink(missing_ok=True)
        _git(root, "worktree", "prune", check=False)
        _git(root, "branch", "-D", branch, check=False)
        raise WorktreeError(
            f"could not create the worktree {name}: {exc}; your tree is untouched (is there "
            f"room on the disk for a copy of the repository in {home}?)"
        ) from None
    return worktree


def find(folder: Path, name: str) -> Worktree:
    root = repository_root(folder)
    record = _record(root, check_name(name))
    if not record.is_file():
        known = ", ".join(w.name for w in listed(folder)) or "none"
        raise WorktreeError(f"no worktree {name!r} (known: {known})")
    try:
        return Worktree(**json.loads(record.read_text()))
    except (OSError, ValueError, TypeError) as exc:
        raise WorktreeError(
            f"the record of the worktree {name!r} ({record}) is unreadable: {exc}"
        ) from None


def listed(folder: Path) -> list[Worktree]:
    root = repository_root(folder)
    home = _home(root)
    if not home.is_dir():
        return []
    found = []
    for record in sorted(home.glob("*.json")):
        try:
            found.append(Worktree(**json.loads(record.read_text())))
        except (OSError, ValueError, TypeError):  # removed meanwhile, or not one of ours
            continue
    return sorted(found, key=lambda w: w.created)


def commit_run(worktree: Worktree, message: str) -> bool:
    """Commit what a run changed in ``worktree`` on its branch; False when nothing did."""
    folder = worktree.folder
    _git(folder, "add", "-A", "--", ".", NOT_AGENTLS)
    if not _git(folder, "diff", "--cached", "--name-only").strip():
        return False
    _git(
        folder,
        "commit",
        "-q",
        "-m",
        message,
        config={"user.name": "agentls", "user.email": "agentls@localhost"},
    )
    return True


def status(worktree: Worktree) -> WorktreeStatus:
    folder = worktree.folder
    if not folder.is_dir():
        return WorktreeStatus(worktree, 0, 0, 0, False, False)
    stats = _git(folder, "diff", "--numstat", worktree.base, "HEAD")
    files = added = removed = 0
    for line in stats.splitlines():
        plus, minus, _ = line.split("\t", 2)
        files += 1
        added += int(plus) if plus.isdigit() else 0
        removed += int(minus) if minus.isdigit() else 0
    dirty = bool(_git(folder, "status", "--porcelain", "--", ".", NOT_AGENTLS).strip())
    return WorktreeStatus(worktree, files, added, removed, dirty, True)


def changes(worktree: Worktree) -> str:
    """The worktree's committed changes since its base, as a binary-safe patch."""
    return _git(worktree.folder, "diff", "--binary", worktree.base, "HEAD")


#: git's modes for a symbolic link and a submodule (a "gitlink").
LINK_MODE = "120000"
SUBMODULE_MODE = "160000"
EXECUTABLE_MODE = "100755"
NO_MODE = "000000"

SpecialKind = Literal["protected", "symlink", "mode", "submodule"]


@dataclass(frozen=True)
class SpecialChange:
    """A change of the branch that is more than a file's text: a protected path, a
    symbolic link, an executable bit, a submodule. Applying one asks on its own (never
    answered by ``--yes``): a set-up step or a command may have made it, not the user."""

    path: str
    kind: SpecialKind
    #: What it is, for the user: "a symbolic link to /etc/passwd (outside the tree)".
    what: str


def _link_target_outside(path: str, target: str) -> bool:
    if os.path.isabs(target):
        return True
    joined = os.path.normpath(os.path.join(os.path.dirname(path), target))
    return joined == ".." or joined.startswith("../")


def _special(
    folder: Path, commit: str, path: str, old: str, new: str, hooks: str | None
) -> SpecialChange | None:
    from agentls.agent.protected.paths import protected_reason

    if SUBMODULE_MODE in (old, new):
        return SpecialChange(path, "submodule", "a submodule (another repository's commit)")
    if LINK_MODE in (old, new):
        if new != LINK_MODE:
            return SpecialChange(path, "symlink", "a symbolic link removed or made a file")
        target = _show(folder, commit, path) or ""
        outside = " (outside the tree)" if _link_target_outside(path, target) else ""
        return SpecialChange(path, "symlink", f"a symbolic link to {target!r}{outside}")
    reason = protected_reason(path, hooks=hooks)
    if reason is not None:
        return SpecialChange(path, "protected", f"a protected file: {reason}")
    if path == ".gitmodules":
        return SpecialChange(path, "submodule", "the submodules' configuration")
    if old == NO_MODE and new == EXECUTABLE_MODE:
        return SpecialChange(path, "mode", "a new executable file")
    if NO_MODE not in (old, new) and old != new:
        what = "made executable" if new == EXECUTABLE_MODE else f"mode {old} to {new}"
        return SpecialChange(path, "mode", f"{what} (file mode {old[-3:]} to {new[-3:]})")
    return None


def special_changes(root: Path, worktree: Worktree) -> list[SpecialChange]:
    """The worktree's changes since its base that are more than text (see
    ``SpecialChange``); ``root`` is the user's tree, whose hooks folder counts."""
    from agentls.agent.protected.paths import configured_hooks

    raw = _git(worktree.folder, "diff", "--raw", "-z", "--no-renames", worktree.base, "HEAD")
    hooks = configured_hooks(root)
    found = []
    fields = raw.split("\0")
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.lstrip(":").split()
        if len(parts) < 2 or not path:
            continue
        special = _special(worktree.folder, "HEAD", path, parts[0], parts[1], hooks)
        if special is not None:
            found.append(special)
    return found


@dataclass
class ApplyCheck:
    patch: str
    files: list[str]
    #: Why the patch does not apply to the user's tree now (names the files), or None.
    conflict: str | None
    #: The files among ``files`` that need a question of their own.
    special: list[SpecialChange] = field(default_factory=list)
    worktree: Worktree | None = None

    @property
    def ordinary(self) -> list[str]:
        held = {change.path for change in self.special}
        return [path for path in self.files if path not in held]


def check_apply(folder: Path, worktree: Worktree) -> ApplyCheck:
    root = repository_root(folder)
    patch = changes(worktree)
    names = _git(worktree.folder, "diff", "--name-only", "-z", worktree.base, "HEAD")
    files = [name for name in names.split("\0") if name]
    if not patch.strip():
        return ApplyCheck(patch, [], None, [], worktree)
    done = _run(root, "apply", "--check", "--whitespace=nowarn", "-", input=patch)
    conflict = None
    if not done.ok:
        lines = [line for line in done.err.splitlines() if line.startswith("error:")]
        conflict = (
            "; ".join(line.removeprefix("error: ") for line in lines[:5]) or "it does not apply"
        )
    return ApplyCheck(patch, files, conflict, special_changes(root, worktree), worktree)


def apply(folder: Path, checked: ApplyCheck, only: list[str] | None = None) -> None:
    """Write the checked changes into the user's tree (all of them, or none); ``only``:
    just these of its files (the rest stay on the branch)."""
    if checked.conflict is not None:
        raise WorktreeError(f"not applied: {checked.conflict}")
    root = repository_root(folder)
    patch = checked.patch
    if only is not None:
        if not only:
            return
        assert checked.worktree is not None, "a check without its worktree applies whole"
        worktree = checked.worktree
        patch = _git(
            worktree.folder,
            "diff",
            "--binary",
            worktree.base,
            "HEAD",
            "--",
            *only,
            env={"GIT_LITERAL_PATHSPECS": "1"},
        )
    done = _run(root, "apply", "--whitespace=nowarn", "-", input=patch)
    if not done.ok:
        raise WorktreeError(f"not applied: {done.err.strip()}")


def discard(
    folder: Path, worktree: Worktree, *, keep_branch: bool = False, force: bool = False
) -> None:
    """Remove the worktree (and its branch unless kept); refused while it holds changes
    nobody committed, unless ``force`` (the user saw them and wants them gone)."""
    root = repository_root(folder)
    with _changing(root):
        _discard(root, worktree, keep_branch=keep_branch, force=force)


def _discard(root: Path, worktree: Worktree, *, keep_branch: bool, force: bool) -> None:
    current = status(worktree)
    if current.uncommitted and not force:
        raise WorktreeError(
            f"the worktree {worktree.name} holds uncommitted changes ({worktree.path}): "
            "commit or remove them there first"
        )
    if current.exists:
        # Only agentls's own state (.agentls/: the sessions of its runs) is left there,
        # checked above, which git would otherwise keep the folder for.
        _git(root, "worktree", "remove", "--force", worktree.path)
    else:
        _git(root, "worktree", "prune")
    if not keep_branch:
        _git(root, "branch", "-D", worktree.branch, check=False)
    _record(root, worktree.name).unlink(missing_ok=True)


def prepare(folder: Path, name: str | None) -> tuple[Worktree, bool]:
    """The worktree a run asked to work in ``name`` uses, and whether it is new: that one
    if it exists, else a new one (named after a fresh id when ``name`` is empty). A folder
    the user trusts lends its trust and its approvals of MCP servers and hooks to its
    worktrees, so their runs read the same workspace config and start the same servers
    without asking again (while their definitions are the same)."""
    from agentls.agent.config.trust import TrustStore, canonical

    root = repository_root(folder)
    with _changing(root):
        # Found and made under one lock: two runs asking for the same new name at once
        # get one worktree, the second run finding the first's.
        if name:
            with contextlib.suppress(WorktreeError):
                return find(folder, name), False
        worktree = _create(root, check_name(name or uuid.uuid4().hex[:12]))
    store = TrustStore()
    if store.is_trusted(root):
        store.lend(root, worktree.path)
        if canonical(folder) != canonical(root):  # approved in a folder below the top
            store.lend(folder, worktree.path)
    return worktree, True


@dataclass
class SetupResult:
    command: str
    exit_code: int | None
    timed_out: bool
    #: The end of its output (stdout and stderr interleaved).
    output: str
    #: What the clean-up after it did (protected files it created, removed).
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def failure(self, worktree: Worktree) -> str:
        """Why the run cannot go on, for the user (empty when it can)."""
        if self.ok:
            return ""
        how = (
            "timed out and was stopped"
            if self.timed_out
            else "could not start"
            if self.exit_code is None
            else f"failed (exit {self.exit_code})"
        )
        tail = self.output.strip().splitlines()[-5:]
        last = ("; its output ended with:\n" + "\n".join(tail)) if tail else ""
        return (
            f"the setup of worktree {worktree.name} (`{self.command}`) {how}; the worktree "
            f"is kept at {worktree.path} (fix it there, or discard it){last}"
        )


async def run_setup(
    worktree: Worktree, config: AppConfig, on_line: Callable[[str], None]
) -> SetupResult:
    """Run ``config.worktree.setup`` in a new worktree as the build agent's commands run:
    in its sandbox (the worktree's protected paths read-only), without our secrets in its
    environment, and followed by the same clean-up (``planted_files.settle``: a protected
    file it created is removed, one it changed named). Each line of its output, masked, to
    ``on_line`` as it comes, then what the clean-up did."""
    import asyncio

    from agentls.agent.config.agents import AgentRegistry
    from agentls.agent.exec.process import FileSnapshotProbe, child_env, run_process
    from agentls.agent.exec.sandbox import find_bwrap, make_sandbox
    from agentls.agent.protected.planted_files import Settled, settle, survey
    from agentls.agent.secrets import redact_secrets

    command = config.worktree.setup
    assert command, "no worktree.setup to run"
    root = worktree.folder
    build = AgentRegistry(config).get("build")
    sandbox = None
    if build.sandbox != "off" and find_bwrap() is not None:
        sandbox = make_sandbox(root, build.sandbox, build.network)
    watched = await asyncio.to_thread(survey, root)
    probe = FileSnapshotProbe(root, config.indexer)
    before = await probe.snapshot()
    argv = ["bash", "-c", command]
    if sandbox is not None:
        argv = sandbox.wrap(argv, root, watched.paths)
    pending = bytearray()

    def show(line: bytes) -> None:
        on_line(redact_secrets(line.decode("utf-8", "replace")))

    def output(chunk: bytes) -> None:
        pending.extend(chunk)
        *lines, rest = pending.split(b"\n")
        for line in lines:
            show(bytes(line))
        pending[:] = rest

    try:
        done = await run_process(
            argv,
            cwd=root,
            env=child_env(),
            time_limit=config.worktree.setup_timeout,
            on_output=output,
        )
    except OSError as exc:
        settled: Settled = await asyncio.to_thread(settle, watched, [], sandboxed=False)
        for note in settled.notes:
            on_line(note)
        return SetupResult(command, None, False, redact_secrets(str(exc)), settled.notes)
    if pending:
        show(bytes(pending))
    changed = await probe.changed_since(before)
    settled = await asyncio.to_thread(settle, watched, changed, sandboxed=sandbox is not None)
    for note in settled.notes:
        on_line(note)
    return SetupResult(
        command, done.exit_code, done.timed_out, redact_secrets(done.output), settled.notes
    )


def describe(current: WorktreeStatus) -> Literal["ready", "uncommitted changes", "missing"]:
    """One word for where a worktree stands (what lists show)."""
    if not current.exists:
        return "missing"
    return "uncommitted changes" if current.uncommitted else "ready"


# -- applying through a FileAccess (an editor's review) ----------------------------------


@dataclass
class FileResult:
    """One file the worktree's branch changed: its text at the base and on the branch
    (None: absent)."""

    path: str
    base: str | None
    branch: str | None


@dataclass
class ApplyPlan:
    """The worktree's changes made against the user's current files: ``changes`` to write
    (all together) when ``conflicts`` is empty; else why each listed file cannot take them."""

    changes: list[FileChange] = field(default_factory=list)
    conflicts: dict[str, str] = field(default_factory=dict)
    #: Files whose user text had moved on and were merged with the branch's (no overlap).
    merged: list[str] = field(default_factory=list)
    #: Changes to protected files: written only after a question of their own.
    protected: list[FileChange] = field(default_factory=list)
    #: Symbolic links, executable bits and submodules: text edits cannot make them, and a
    #: set-up step may have; left on the branch (``agentls apply`` asks about each).
    held: list[SpecialChange] = field(default_factory=list)


def _show(folder: Path, commit: str, path: str) -> str | None:
    # cat-file, not show: the blob as stored, never through a textconv driver.
    done = _run(folder, "cat-file", "blob", f"{commit}:{path}")
    if not done.ok:
        return None
    return done.out


def branch_files(worktree: Worktree) -> list[FileResult]:
    """What the worktree's branch changed since its base, file by file (blocking: git)."""
    folder = worktree.folder
    names = _git(folder, "diff", "--name-only", "--no-renames", worktree.base, "HEAD").split("\n")
    return [
        FileResult(path, _show(folder, worktree.base, path), _show(folder, "HEAD", path))
        for path in names
        if path
    ]


def merge_texts(mine: str, base: str, theirs: str) -> str | None:
    """``git merge-file``'s three-way merge of the user's text and the branch's over their
    common base; None when they change the same lines (blocking: a git process)."""
    with tempfile.TemporaryDirectory() as scratch:
        paths = []
        for label, text in (("mine", mine), ("base", base), ("theirs", theirs)):
            path = Path(scratch) / label
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
            paths.append(str(path))
        done = _run(scratch, "merge-file", "-p", "--quiet", *paths)
    if not done.ok:
        return None
    return done.out


async def plan_apply(worktree: Worktree, files: FileAccess) -> ApplyPlan:
    """The worktree's committed changes as a change set for ``files`` (the user's tree as
    the user sees it: in an editor, its unsaved buffers too). A file the user left as it
    was at the base takes the branch's text; one the user changed too is merged when the
    two touch different lines, else it is a conflict and nothing is planned to be written."""
    import asyncio

    from agentls.agent.workspace import FileChange

    if not worktree.folder.is_dir():
        raise WorktreeError(f"the worktree {worktree.name} is gone ({worktree.path})")
    plan = ApplyPlan()
    special = {
        change.path: change
        for change in await asyncio.to_thread(special_changes, Path(files.root), worktree)
    }
    for result in await asyncio.to_thread(branch_files, worktree):
        kind = special[result.path].kind if result.path in special else None
        if kind is not None and kind != "protected":
            plan.held.append(special[result.path])
            continue
        into = plan.protected if kind == "protected" else plan.changes
        current = await _current_text(files, result.path)
        if current == result.base:
            into.append(FileChange(result.path, result.branch, current))
            continue
        if current == result.branch:
            continue  # the user's tree holds the branch's text already
        if current is None or result.base is None or result.branch is None:
            plan.conflicts[result.path] = (
                "you deleted it since the worktree was made"
                if current is None
                else "you created it too"
                if result.base is None
                else "the worktree deleted it and you changed it"
            )
            continue
        merged = await asyncio.to_thread(merge_texts, current, result.base, result.branch)
        if merged is None:
            plan.conflicts[result.path] = "you changed the same lines since the worktree was made"
            continue
        into.append(FileChange(result.path, merged, current))
        plan.merged.append(result.path)
    return plan


async def _current_text(files: FileAccess, path: str) -> str | None:
    if not await files.exists(path):
        return None
    return (await files.read_text(path)).text
