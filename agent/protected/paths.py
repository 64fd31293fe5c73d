"""Files inside the workspace that configure agentls, the editor or git, or instruct the agent.

A command the agent runs, or an edit it makes, could plant one of these for later: a git
hook runs on the user's next ``git checkout``, an ``.mcp.json`` server or a
``.vscode/tasks.json`` task starts on the next agent run or editor start, an
``AGENTS.md`` steers every later run. So commands see them read-only inside the sandbox
(and may not create them), and the file tools ask before changing them in every confirm
mode, ``yolo`` included. Git hooks kept in the working tree count too (``.githooks/``,
``.husky/``, the hook managers' files, and whatever folder the repository's
``core.hooksPath`` names): agentls's own git never runs them, the user's git does.

``protected_reason`` answers for one workspace-relative path; ``ROOT_NAMES`` and
``ANY_LEVEL_NAMES`` are what the sandbox binds read-only or watches for;
``find_protected`` lists the ones that exist under a workspace.

Besides these fixed names, a run may protect more (``Extra``): the workspace files that
an MCP server or a hook the user approved runs or reads (``agent.protected.approved_files``). The
run passes them wherever protection is decided; they are protected like the rest.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agentls.indexer.safe_git import configured_hooks_path
from agentls.indexer.settings import DEFAULT_EXCLUDE_DIRS

_HOOKS = "it holds git hooks (core.hooksPath), which run on the user's next commit"
_LEFTHOOK = "it configures lefthook, which runs on the user's next commit"
#: Where lefthook reads its configuration (and its scripts, in ``.lefthook/``).
LEFTHOOK_FILES = (
    *(
        f"{dot}lefthook{local}.{ext}"
        for dot in ("", ".")
        for local in ("", "-local")
        for ext in ("yml", "yaml", "json", "toml")
    ),
    ".config/lefthook.yml",
    ".config/lefthook.yaml",
    ".lefthook",
    ".lefthook-local",
)
#: The hooks git runs, by name (for a ``core.hooksPath`` that is the workspace itself).
GIT_HOOK_NAMES = frozenset(
    {
        "applypatch-msg",
        "pre-applypatch",
        "post-applypatch",
        "pre-commit",
        "pre-merge-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "pre-rebase",
        "post-checkout",
        "post-merge",
        "pre-push",
        "pre-receive",
        "update",
        "proc-receive",
        "post-receive",
        "post-update",
        "reference-transaction",
        "push-to-checkout",
        "pre-auto-gc",
        "post-rewrite",
        "sendemail-validate",
        "fsmonitor-watchman",
        "p4-changelist",
        "p4-prepare-changelist",
        "p4-post-changelist",
        "p4-pre-submit",
        "post-index-change",
    }
)

#: Paths protected where they sit at the workspace root, and why.
ROOT_NAMES: dict[str, str] = {
    ".git": "it is git's own directory (hooks and config run code)",
    ".agentls.yaml": "it configures agentls",
    ".agentls": "it holds agentls's state and hooks",
    ".mcp.json": "it declares MCP servers that agentls and other tools start",
    ".vscode": "it configures VS Code (tasks, launch, MCP servers, settings)",
    ".claude": "it configures Claude Code (commands, hooks)",
    ".github/copilot-instructions.md": "it instructs coding agents",
    ".github/instructions": "it instructs coding agents",
    ".github/prompts": "it holds prompt files coding agents run",
    # Agent definitions and skills change what the next run may do and what it is told:
    # planted by one run's command, they would steer the next one.
    ".github/agents": "it defines agents (their tools, model and permissions)",
    ".github/skills": "it holds skills coding agents load and run",
    ".agents": "it holds skills coding agents load and run",
    # Hooks kept in the working tree, which git runs on the user's next commit or checkout
    # (outside the sandbox, as the user), and the hook managers' configurations.
    ".githooks": _HOOKS,
    ".husky": "it holds husky's git hooks, which run on the user's next commit",
    ".pre-commit-config.yaml": "it configures pre-commit, which runs on the user's next commit",
    **{name: _LEFTHOOK for name in LEFTHOOK_FILES},
}

#: File or directory names protected at any depth (nested repositories, the instruction
#: files a run reads from the directories it works in).
ANY_LEVEL_NAMES: dict[str, str] = {
    ".git": "it is a git directory (hooks and config run code)",
    "AGENTS.md": "it instructs coding agents",
    "AGENTS.override.md": "it instructs coding agents",
    "CLAUDE.md": "it instructs coding agents",
}


#: Workspace-relative paths a run protects beyond the fixed names, and why each.
Extra = Mapping[str, str]
NO_EXTRA: Extra = {}


def protected_reason(
    relative: str, extra: Extra = NO_EXTRA, hooks: str | None = None
) -> str | None:
    """Why a change to ``relative`` (workspace-relative, ``/``-separated) must be shown to
    the user, or None when it is an ordinary file. ``extra``: what the run protects beyond
    the fixed names (approved programs' files); ``hooks``: the workspace's configured hooks
    folder (``configured_hooks``), which counts too."""
    found = protected_entry(relative, extra, hooks)
    return None if found is None else f"{found[0]}: {found[1]}"


def configured_hooks(root: Path | str) -> str | None:
    """The folder ``core.hooksPath`` of the repository at ``root`` names, relative to
    ``root`` ("." for the root itself), when it lies inside it (outside, a command in
    the workspace cannot write it); read with agentls's own safe git (blocking: a git
    process, so a caller asks once for many paths)."""
    path = configured_hooks_path(root)
    if path is None:
        return None
    base = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != base and not real.startswith(base + os.sep):
        return None
    return Path(os.path.relpath(real, base)).as_posix()


def _hooks_entry(relative: str, hooks: str) -> tuple[str, str] | None:
    if hooks == ".":
        first = PurePosixPath(relative).parts[0]
        return (first, _HOOKS) if first in GIT_HOOK_NAMES else None
    if relative == hooks or relative.startswith(hooks + "/"):
        return hooks, _HOOKS
    return None


def protected_entry(
    relative: str, extra: Extra = NO_EXTRA, hooks: str | None = None
) -> tuple[str, str] | None:
    """The protected path that holds ``relative`` (itself or a directory above it) and
    why it is protected, or None when it is an ordinary file (``hooks``: see
    ``protected_reason``)."""
    parts = PurePosixPath(relative).parts
    if not parts or parts[0] in ("", "/"):
        return None
    if hooks:
        found = _hooks_entry(PurePosixPath(relative).as_posix(), hooks)
        if found is not None:
            return found
    for length in range(len(parts), 0, -1) if extra else ():
        reason = extra.get("/".join(parts[:length]))
        if reason is not None:
            return "/".join(parts[:length]), reason
    for length in range(len(parts), 0, -1):
        reason = ROOT_NAMES.get("/".join(parts[:length]))
        if reason is not None:
            return "/".join(parts[:length]), reason
    for index, part in enumerate(parts):
        reason = ANY_LEVEL_NAMES.get(part)
        if reason is not None:
            return "/".join(parts[: index + 1]), reason
    return None


#: Directories the search for nested protected paths does not enter: the index's fixed
#: excludes. Not the ``exclude_dirs`` of the config: an untrusted workspace's
#: ``.agentls.yaml`` may set those, and must not be able to take a directory out of
#: protection. (``.git`` is in the list: a git directory is protected whole, never entered.)
SKIPPED_DIRS = frozenset(DEFAULT_EXCLUDE_DIRS)
#: At most this many directories are read looking for nested protected paths. Past it the
#: deeper ones are neither bound read-only nor watched (a command can change them), and
#: one a command creates there is caught only when the run's changes probe lists it. The
#: walk goes breadth-first, so what is cut is the deepest part of a huge tree.
MAX_DIRS = 3_000


@dataclass(frozen=True)
class Found:
    """The protected paths that exist under a root, workspace-relative, shallowest first."""

    paths: tuple[str, ...]
    #: False when ``MAX_DIRS`` stopped the walk before it saw every directory.
    complete: bool


def find_protected(root: Path | str, *, max_dirs: int = MAX_DIRS, extra: Extra = NO_EXTRA) -> Found:
    """Every existing protected path under ``root``: each of ``ROOT_NAMES`` and ``extra``
    (checked directly), and each of ``ANY_LEVEL_NAMES`` a breadth-first ``scandir`` walk
    finds.

    The walk enters neither symlinked directories (they may lead anywhere, and what they
    lead to inside the root is walked on its own) nor ``SKIPPED_DIRS`` nor protected
    directories (protected whole). Symlinks are listed as themselves, not followed.
    """
    base = os.fspath(root)
    found = [rel for rel in (*ROOT_NAMES, *extra) if os.path.lexists(os.path.join(base, rel))]
    found += [rel for rel in _existing_hooks(base) if rel not in found]
    found = list(dict.fromkeys(found))
    seen = set(found)
    queue: deque[str] = deque([""])
    visited = 0
    while queue:
        if visited >= max_dirs:
            return Found(tuple(sorted(found, key=_depth_then_name)), complete=False)
        directory = queue.popleft()
        visited += 1
        try:
            with os.scandir(os.path.join(base, directory)) as entries:
                listed = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            continue  # unreadable or gone: nothing there to protect from the command
        for entry in listed:
            rel = f"{directory}/{entry.name}" if directory else entry.name
            if entry.name in ANY_LEVEL_NAMES or rel in ROOT_NAMES:
                if rel not in seen:
                    seen.add(rel)
                    found.append(rel)
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and entry.name not in SKIPPED_DIRS:
                queue.append(rel)
    return Found(tuple(sorted(found, key=_depth_then_name)), complete=True)


def _existing_hooks(base: str) -> list[str]:
    """The configured hooks folder (or, when it is the root, the hooks in it), if there."""
    hooks = configured_hooks(base)
    if hooks is None or hooks == ".git" or hooks.startswith(".git/"):
        return []
    names = sorted(GIT_HOOK_NAMES) if hooks == "." else [hooks]
    return [rel for rel in names if os.path.lexists(os.path.join(base, rel))]


def _depth_then_name(rel: str) -> tuple[int, str]:
    return rel.count("/"), rel
