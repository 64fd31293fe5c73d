"""A run in a worktree of its own, one lifecycle for every front end.

``open_worktree_run`` makes (or finds) the worktree (``agent.worktrees.prepare``);
``WorktreeRun.set_up`` runs ``worktree.setup`` in a new one, its output reported as
``WorktreeSetup`` events through the run's Observer; the run then works in it with the
worktree's own policy (``reviewed_at_apply``: its edits are written without a question,
protected files refused, see ``media``); ``finish`` commits what the run changed under
``commit_title`` and returns a ``WorktreeSummary``, which each front end only renders.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from agentls.agent.config.models import AppConfig
from agentls.agent.events import Observer, WorktreeSetup
from agentls.agent.worktree_edits import EditsUnasked, refuse_protected
from agentls.agent.worktrees import Worktree, WorktreeError, prepare, repository_root

if TYPE_CHECKING:
    from agentls.agent.policy.approval import (
        Approver,
    )
    from agentls.agent.workspace import FileAccess
    from agentls.indexer.index import RepoIndex
    from agentls.indexer.symbols_client import SymbolProcess

__all__ = [
    "WorktreeError",
    "WorktreeRun",
    "WorktreeSummary",
    "commit_title",
    "open_worktree_run",
]

#: How long a commit title's words from the prompt may be.
TITLE_LENGTH = 60


def commit_title(prompt: str) -> str:
    """The message of the commit a worktree run's changes are kept in: the prompt's
    first line, cut."""
    text = prompt.strip()
    return "agentls: " + (text.splitlines()[0][:TITLE_LENGTH] if text else "run")


class WorktreeSummary(BaseModel):
    """Where a worktree stands after a run: what its branch changed since its base, and
    how the user brings that into their tree or drops it."""

    model_config = ConfigDict(frozen=True)

    name: str
    branch: str
    path: str
    files: int
    added: int
    removed: int

    @property
    def changes(self) -> str:
        return (
            f"worktree {self.name} (branch {self.branch}): {self.files} file(s) changed, "
            f"+{self.added} -{self.removed}"
        )

    @property
    def next_steps(self) -> str:
        return (
            f"Apply it to your tree with `agentls apply {self.name}`, or "
            f"`agentls discard {self.name}`."
        )

    def text(self) -> str:
        """One paragraph for a terminal or a conversation."""
        return f"{self.changes}. {self.next_steps}"


@dataclass
class WorktreeRun:
    """A run's (or an ACP session's) worktree: made from ``source``, the user's folder."""

    worktree: Worktree
    source: Path
    #: The worktree was made for this run (else an earlier run's was found).
    created: bool
    #: Whether the medium confirms a worktree's edits one by one (``Medium``; no medium
    #: does today: they are reviewed when the branch is applied).
    edits_confirmed: bool = False
    #: ``worktree.setup`` has yet to run (the worktree is new).
    needs_setup: bool = field(init=False)

    def __post_init__(self) -> None:
        self.needs_setup = self.created

    @property
    def name(self) -> str:
        return self.worktree.name

    def config_for(self, config: AppConfig) -> AppConfig:
        """``config`` with the worktree as its workspace."""
        workspace = config.workspace.model_copy(update={"root": self.worktree.folder})
        return config.model_copy(update={"workspace": workspace})

    async def set_up(self, config: AppConfig, observer: Observer) -> str:
        """Run ``worktree.setup`` once in the new worktree, reported through
        ``observer``; why the run cannot go on (masked), or "" when it can."""
        from agentls.agent.secrets import redact_secrets
        from agentls.agent.worktrees import run_setup

        command = config.worktree.setup
        if not self.needs_setup or not command:
            self.needs_setup = False
            return ""
        self.needs_setup = False
        name = self.worktree.name

        def line(text: str) -> None:
            observer(WorktreeSetup(name, "output", text))

        observer(WorktreeSetup(name, "started", redact_secrets(command)))
        done = await run_setup(self.worktree, config, line)
        ended = (
            "timed out"
            if done.timed_out
            else "could not start"
            if done.exit_code is None
            else f"exit code {done.exit_code}"
        )
        observer(WorktreeSetup(name, "ended", ended))
        return redact_secrets(done.failure(self.worktree))

    def reviewed_at_apply(self, approver: Approver, files: FileAccess) -> Approver:
        """The worktree's edit policy on a front end's parts (the same in every medium,
        see ``media``): ``files`` writes without a question and refuses protected files;
        the returned approver confirms edits through ``files`` (an ACP client or a
        terminal would otherwise ask), and asks everything else as ``approver`` does."""
        from agentls.agent.workspace import DiskFileAccess

        if self.edits_confirmed:
            return approver  # asked edit by edit, as in the user's own tree
        if not isinstance(files, DiskFileAccess):
            raise TypeError("a worktree's files are on disk")
        files.confirmer = refuse_protected(self.worktree.folder)
        return EditsUnasked(approver)

    async def own_index(self, config: AppConfig) -> tuple[RepoIndex | None, SymbolProcess | None]:
        """The worktree's own index, and its symbols parsed in a process of their own
        (for a front end that keeps its index live in another process: the server). A
        worktree copied from the repository's top without a set-up step reuses the user's
        symbol cache. The caller closes the process."""
        from agentls.agent.config.state_paths import cache_path
        from agentls.agent.indexing import SYMBOLS_CACHE_FILE, build_index
        from agentls.indexer.repomap import CopiedTree
        from agentls.indexer.symbols_client import SymbolProcess

        index = await build_index(config)
        if index is None:
            return None, None
        copied_from = None
        copy_of = await asyncio.to_thread(self._copy_of, bool(config.worktree.setup))
        if copy_of is not None:
            origin_cache = cache_path(copy_of, SYMBOLS_CACHE_FILE)
            if origin_cache is not None:
                copied_from = CopiedTree(copy_of, origin_cache)
        root = config.workspace.root
        symbols = SymbolProcess(
            index, cache_path(root, SYMBOLS_CACHE_FILE), copied_from=copied_from
        )
        symbols.changed()
        return index, symbols

    def _copy_of(self, set_up: bool) -> Path | None:
        if set_up or not self.created:
            return None  # a set-up step or earlier runs changed it: the cache is not its
        return copied_folder(self.source)

    async def finish(self, prompt: str) -> WorktreeSummary:
        """Commit what the run changed on the worktree's branch (``commit_title``); the
        worktree as it is now. WorktreeError when git refused."""
        from agentls.agent.worktrees import commit_run

        await asyncio.to_thread(commit_run, self.worktree, commit_title(prompt))
        return await asyncio.to_thread(summary, self.worktree)


def summary(worktree: Worktree) -> WorktreeSummary:
    """What ``worktree``'s branch changed since its base (blocking: git)."""
    from agentls.agent.folder.worktree_book import worktree_info

    info = worktree_info(worktree, running=False)
    return WorktreeSummary.model_validate(
        info.model_dump(include=set(WorktreeSummary.model_fields))
    )


async def open_worktree_run(
    folder: Path, name: str | None, *, edits_confirmed: bool = False
) -> WorktreeRun:
    """The worktree ``name`` of ``folder``'s repository, made from the user's current state
    when new (a fresh name when ``name`` is empty). WorktreeError says why not."""
    worktree, created = await asyncio.to_thread(prepare, folder, name or None)
    return WorktreeRun(worktree, folder, created, edits_confirmed=edits_confirmed)


def copied_folder(source: Path) -> Path | None:
    """``source`` (resolved) when a new worktree of its repository is a copy of it: when
    it is the repository's top, not a folder inside (blocking: a git process)."""
    resolved = source.resolve()
    return resolved if repository_root(source) == resolved else None
