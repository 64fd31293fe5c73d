"""How agentls runs git itself: the one way, for every git process agentls starts.

agentls runs git outside any sandbox (to list the workspace, show its changes, make and
commit a worktree, apply one), often right after a sandboxed command could write into
the working tree, and in repositories nobody trusted yet. git obeys more than its
arguments: the repository's ``.git/config`` and files in the working tree can name
programs git runs without being asked. Every call here turns each of them off:

* hooks: ``core.hooksPath`` points at ``/dev/null`` (no directory, so no hook is found,
  whatever ``.githooks/``, ``.husky/`` or ``.git/hooks/`` hold) and ``commit``, ``merge``
  and ``push`` get ``--no-verify`` too;
* the fsmonitor hook (``core.fsmonitor``, run on every index refresh), the untracked
  cache, optional locks (a read must not write the index);
* external diff and textconv drivers: ``--no-ext-diff --no-textconv`` on every command
  that diffs, and ``GIT_EXTERNAL_DIFF`` is never passed on;
* filter drivers (``clean``, ``smudge``, ``process``), which ``add``, ``diff``,
  ``status``, ``apply`` and a checkout run on file contents. An in-tree
  ``.gitattributes`` chooses the driver by name, the configuration defines it. Names
  cannot be listed ahead on a command line, and no attributes file outranks the working
  tree's own ``.gitattributes`` (``core.attributesFile`` ranks lowest), so before such a
  command the configuration is read (``git config --get-regexp``, which runs nothing)
  and every driver defined anywhere but the user's own files (system and global scope:
  outside the workspace, out of a sandboxed command's reach) is emptied through
  ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``, which take any name
  as it is and win over every file. A driver the repository's ``.git/config`` (or a file
  it includes) defines is the repository's, not the user's;
* the pager, the editor, prompts and credential helpers: ``core.pager=cat``, an empty
  ``core.askPass`` and ``credential.helper``, ``GIT_TERMINAL_PROMPT=0``, stdin closed,
  and no transport (``protocol.allow=never``): agentls's own git never talks to a remote;
* signing programs (``commit.gpgSign``), automatic ``gc``/maintenance.

And the environment is built from a short list of names git needs (``PATH``, ``HOME``,
the locale, ``TMPDIR``, the user's name, which config files to read): whatever else the
process holds, the model provider's key under any name included, never reaches git or
anything it might start. git itself is looked up on that PATH without its relative
entries, so a ``git`` planted in the workspace is never the one that runs.

``ci/run-agent.sh`` runs git with the same settings (its ``safe_git`` function); a test
checks the two lists agree and that nothing else in the sources starts git.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The program, always found on PATH like any git the user runs.
GIT = "git"

#: ``core.hooksPath``: not a directory, so git finds no hook in it.
NO_HOOKS = "/dev/null"

#: Settings given on every call, before the subcommand (command line: above every file).
SETTINGS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.untrackedCache", "false"),
    ("core.hooksPath", NO_HOOKS),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)

#: Global options on every call (before the ``-c`` settings).
GLOBAL_OPTIONS: tuple[str, ...] = ("--no-optional-locks",)

#: Options put right after these subcommands.
SUBCOMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    "commit": ("--no-verify",),
    "merge": ("--no-verify",),
    "push": ("--no-verify",),
    "diff": ("--no-ext-diff", "--no-textconv"),
    "log": ("--no-ext-diff", "--no-textconv"),
    "show": ("--no-ext-diff", "--no-textconv"),
}

#: Subcommands that never read a file's contents through a filter driver: no need to
#: read the configuration for driver names first. (``cat-file`` only with ``--filters``
#: or ``--textconv``, which agentls never passes.)
NO_FILTERS = frozenset(
    {
        "rev-parse",
        "config",
        "ls-files",
        "show-ref",
        "branch",
        "cat-file",
        "commit-tree",
        "write-tree",
        "merge-file",
        "for-each-ref",
    }
)

#: Configuration scopes that are the user's own files, outside any workspace.
USER_SCOPES = frozenset({"system", "global"})

#: What git may see of agentls's environment: nothing else passes.
ENV_KEPT = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_MESSAGES",
        "LC_COLLATE",
        "LC_NUMERIC",
        "LC_TIME",
        "TZ",
        "TMPDIR",
        "XDG_CONFIG_HOME",
        # Which of the user's own configuration files git reads (tests and CI set them).
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM",
    }
)

#: Always set: nobody can answer a prompt or page through output.
ENV_FIXED: dict[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
}

#: Variables a caller may add for one call (a temporary index, a commit's identity,
#: literal pathspecs); anything else is refused, so no caller passes a secret on by mistake.
ENV_ALLOWED_EXTRA = frozenset(
    {
        "GIT_INDEX_FILE",
        "GIT_LITERAL_PATHSPECS",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
    }
)


class GitSetupError(ValueError):
    """A caller asked for something this module never does (a programming error)."""


@dataclass(frozen=True)
class GitResult:
    """A finished git: its exit code and output as bytes (``out``/``err`` as text)."""

    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def out(self) -> str:
        """stdout as text; bytes that are not UTF-8 survive a round trip."""
        return self.stdout.decode("utf-8", "surrogateescape")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    def last_error(self) -> str:
        """The last line git printed about what went wrong ("" when none)."""
        lines = (self.err or self.stdout.decode("utf-8", "replace")).strip().splitlines()
        return lines[-1] if lines else ""


def absolute_path(path: str) -> str:
    """``path`` (a PATH value) without its relative entries: ``.`` or ``node_modules/.bin``
    would find a ``git`` that a command planted in the folder git runs in."""
    return os.pathsep.join(entry for entry in path.split(os.pathsep) if os.path.isabs(entry))


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every git gets: the kept names of ours, the fixed ones, ``extra``.
    Its PATH, which also finds git itself, holds only absolute folders."""
    env = {k: v for k, v in os.environ.items() if k in ENV_KEPT}
    env["PATH"] = absolute_path(env.get("PATH", os.defpath)) or os.defpath
    env.update(ENV_FIXED)
    for name, value in (extra or {}).items():
        if name not in ENV_ALLOWED_EXTRA:
            raise GitSetupError(f"{name} is not passed to git")
        env[name] = value
    return env


def git_argv(args: Sequence[str], config: Mapping[str, str] | None = None) -> list[str]:
    """The full command line for ``git ARGS`` (``args[0]``: the subcommand), with the
    settings above and ``config`` (``-c`` for this call: a commit's identity)."""
    if not args or args[0].startswith("-"):
        raise GitSetupError("git's arguments start with its subcommand")
    argv = [GIT, *GLOBAL_OPTIONS]
    for key, value in (*SETTINGS, *(config or {}).items()):
        argv += ["-c", f"{key}={value}"]
    argv += [args[0], *SUBCOMMAND_OPTIONS.get(args[0], ()), *args[1:]]
    return argv


def _config_entries(output: bytes) -> list[tuple[str, str]]:
    """(scope, key) of each entry of ``git config --show-scope --null --get-regexp``:
    ``scope NUL key LF value NUL`` (a key holds no LF, a value may)."""
    fields = output.split(b"\0")
    entries = []
    for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
        key = entry.split(b"\n", 1)[0]
        entries.append((scope.decode("utf-8", "replace"), os.fsdecode(key)))
    return entries


def untrusted_filters(output: bytes) -> list[str]:
    """The filter driver names any entry outside the user's own scopes defines."""
    names = []
    for scope, key in _config_entries(output):
        if scope in USER_SCOPES or not key.lower().startswith("filter."):
            continue
        name = key[len("filter.") :].rpartition(".")[0]
        if name and name not in names:
            names.append(name)
    return names


def filters_off(names: Sequence[str]) -> dict[str, str]:
    """``GIT_CONFIG_*`` variables that empty each of the filter drivers ``names``: no
    clean, smudge or long-running process, and not required (a required driver without
    a command would fail the call instead)."""
    pairs = [
        (f"filter.{name}.{item}", value)
        for name in names
        for item, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))
    ]
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for index, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


_LIST_FILTERS = ("config", "--show-scope", "--null", "--get-regexp", r"^filter\.")


def _needs_filters_off(args: Sequence[str]) -> bool:
    return args[0] not in NO_FILTERS


def _run(
    argv: list[str],
    cwd: Path | str | None,
    env: dict[str, str],
    data: bytes | None,
    timeout: float | None,
) -> GitResult:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        input=data,
        stdin=None if data is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return GitResult(done.returncode, done.stdout, done.stderr)


def run_git(
    args: Sequence[str],
    *,
    cwd: Path | str | None,
    input: bytes | str | None = None,
    env: Mapping[str, str] | None = None,
    config: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> GitResult:
    """Run ``git ARGS`` in ``cwd`` the safe way (blocking). OSError when git cannot
    start; ``subprocess.TimeoutExpired`` past ``timeout``; a failing git is a result."""
    base = git_env(env)
    data = input.encode("utf-8", "surrogateescape") if isinstance(input, str) else input
    if _needs_filters_off(args):
        listed = _run(git_argv(_LIST_FILTERS), cwd, base, None, timeout)
        base.update(filters_off(untrusted_filters(listed.stdout if listed.ok else b"")))
    return _run(git_argv(args, config), cwd, base, data, timeout)


async def _run_async(
    argv: list[str], cwd: Path | str | None, env: dict[str, str], data: bytes | None
) -> GitResult:
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE if data is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate(data)
    return GitResult(process.returncode or 0, out, err)


async def run_git_async(
    args: Sequence[str],
    *,
    cwd: Path | str | None,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> GitResult:
    """``run_git`` for the event loop. OSError when git cannot start."""
    base = git_env(env)
    if _needs_filters_off(args):
        listed = await _run_async(git_argv(_LIST_FILTERS), cwd, base, None)
        base.update(filters_off(untrusted_filters(listed.stdout if listed.ok else b"")))
    return await _run_async(git_argv(args), cwd, base, input)


def configured_hooks_path(cwd: Path | str) -> str | None:
    """The ``core.hooksPath`` the repository at ``cwd`` itself configures (ours left out),
    as git would resolve it: absolute, or None when unset or unreadable."""
    try:
        done = run_git(
            ["config", "--show-scope", "--null", "--get-all", "core.hooksPath"],
            cwd=cwd,
            timeout=30,
        )
        if not done.ok:
            return None
        top = run_git(["rev-parse", "--show-toplevel"], cwd=cwd, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = done.stdout.split(b"\0")
    values = [
        os.fsdecode(value)
        for scope, value in zip(fields[0::2], fields[1::2], strict=False)
        if scope != b"command" and value
    ]
    if not values:
        return None
    path = os.path.expanduser(values[-1])
    if not os.path.isabs(path):
        # Relative to the top of the working tree, where git runs hooks.
        if not top.ok or not top.out.strip():
            return None
        path = os.path.join(top.out.strip(), path)
    return os.path.normpath(path)
