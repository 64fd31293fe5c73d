"""Which paths the index skips: fixed excludes, user globs and ``.gitignore`` files.

``.gitignore`` syntax is left to ``pathspec``; this module only applies git's
precedence: patterns of a deeper ``.gitignore`` win over shallower ones, the last
matching pattern of a file wins, and nothing below an ignored directory can be
re-included.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agentls.indexer.settings import IndexSettings
from agentls.regular_files import read_regular

if TYPE_CHECKING:
    import pathspec

GITIGNORE = ".gitignore"


def _compile_globs(globs: Iterable[str]) -> re.Pattern[str] | None:
    parts = [fnmatch.translate(g) for g in globs]
    return re.compile("|".join(parts)) if parts else None


def _ancestors(rel: str) -> list[tuple[str, str]]:
    """(name, path) of every directory above ``rel``, outermost first."""
    parts = rel.split("/")[:-1]
    return [(part, "/".join(parts[: i + 1])) for i, part in enumerate(parts)]


class IgnoreRules:
    """Decides whether a workspace-relative path (``/``-separated) is left out."""

    def __init__(self, root: Path | str, settings: IndexSettings) -> None:
        self.root = os.path.realpath(root)
        self.settings = settings
        names = {d.strip("/") for d in settings.exclude_dirs if "/" not in d.strip("/")}
        names.add(".git")  # never content, whatever the settings say
        self._dir_names = frozenset(names)
        self._dir_paths = tuple(
            d.strip("/") + "/" for d in settings.exclude_dirs if "/" in d.strip("/")
        )
        self._name_globs = _compile_globs(p for p in settings.exclude_patterns if "/" not in p)
        self._path_globs = _compile_globs(
            p.lstrip("/") for p in settings.exclude_patterns if "/" in p
        )
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}
        self._dir_verdicts: dict[str, bool] = {}
        self._chains: dict[str, tuple[tuple[str, pathspec.GitIgnoreSpec], ...]] = {}

    def invalidate(self) -> None:
        """Forget loaded ``.gitignore`` files (one changed)."""
        self._specs.clear()
        self._dir_verdicts.clear()
        self._chains.clear()

    # -- fixed excludes ---------------------------------------------------------
    def excluded_dir(self, name: str, rel: str) -> bool:
        if name in self._dir_names:
            return True
        return bool(self._dir_paths) and (rel + "/").startswith(self._dir_paths)

    def excluded_file(self, name: str, rel: str) -> bool:
        if self._name_globs is not None and self._name_globs.match(name):
            return True
        return self._path_globs is not None and self._path_globs.match(rel) is not None

    def keeps_every_file_in(self, dir_rel: str) -> bool:
        """True when no rule can leave out a file of this directory (no file patterns,
        no ``.gitignore`` above it): a walk then skips the per-file checks."""
        if self._name_globs is not None or self._path_globs is not None:
            return False
        return not self.settings.use_gitignore or not self._chain(dir_rel)

    def excluded_by_settings(self, rel: str) -> bool:
        """Fixed excludes only (no ``.gitignore``): for paths git already filtered."""
        if any(self.excluded_dir(name, path) for name, path in _ancestors(rel)):
            return True
        return self.excluded_file(rel.rpartition("/")[2], rel)

    # -- .gitignore -----------------------------------------------------------------
    def spec_for(self, dir_rel: str) -> pathspec.GitIgnoreSpec | None:
        """The compiled ``.gitignore`` of a directory (``""`` is the root), cached."""
        if dir_rel in self._specs:
            return self._specs[dir_rel]
        lines: list[str] = []
        sources = [os.path.join(self.root, dir_rel, GITIGNORE)]
        if dir_rel == "":
            sources.insert(0, os.path.join(self.root, ".git", "info", "exclude"))
        for source in sources:
            try:
                # A .gitignore a command replaced by a FIFO must not hang the walk.
                raw = read_regular(os.path.realpath(source))
            except OSError:
                continue
            lines.extend(raw.decode("utf-8", "surrogateescape").splitlines())
        spec: pathspec.GitIgnoreSpec | None = None
        if any(line.strip() and not line.startswith("#") for line in lines):
            import pathspec  # here: a folder without .gitignore files never needs it (~20 ms)

            try:
                # "simple" (Python's re): the faster backends pathspec picks when
                # hyperscan or re2 is installed cannot take non-UTF-8 file names.
                spec = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
            except (ValueError, TypeError, re.error):
                spec = None  # an unparsable .gitignore ignores nothing rather than everything
        self._specs[dir_rel] = spec
        return spec

    def gitignored(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` itself matches the ``.gitignore`` files above it.

        Ancestors are not checked here: the walk prunes ignored directories itself.
        """
        if not self.settings.use_gitignore:
            return False
        parent = rel.rpartition("/")[0]
        suffix = "/" if is_dir else ""
        # Deepest .gitignore first: the first one with an opinion decides.
        for base, spec in self._chain(parent):
            sub = rel[len(base) + 1 :] if base else rel
            verdict = spec.check_file(sub + suffix).include
            if verdict is not None:
                return bool(verdict)
        return False

    def _chain(self, dir_rel: str) -> tuple[tuple[str, pathspec.GitIgnoreSpec], ...]:
        """The ``.gitignore`` files that apply inside ``dir_rel``, deepest first (cached:
        a file check then costs one lookup, not one per ancestor)."""
        chain = self._chains.get(dir_rel)
        if chain is None:
            parent = self._chain(dir_rel.rpartition("/")[0]) if dir_rel else ()
            spec = self.spec_for(dir_rel)
            chain = ((dir_rel, spec), *parent) if spec is not None else parent
            self._chains[dir_rel] = chain
        return chain

    def ignored(self, rel: str, *, is_dir: bool = False) -> bool:
        """The full verdict for any path, ancestors included (used for watcher events)."""
        if any(self._dir_ignored(name, path) for name, path in _ancestors(rel)):
            return True
        name = rel.rpartition("/")[2]
        if is_dir:
            return self._dir_ignored(name, rel)
        return self.excluded_file(name, rel) or self.gitignored(rel, False)

    def _dir_ignored(self, name: str, rel: str) -> bool:
        verdict = self._dir_verdicts.get(rel)
        if verdict is None:
            verdict = self.excluded_dir(name, rel) or self.gitignored(rel, True)
            self._dir_verdicts[rel] = verdict
        return verdict
