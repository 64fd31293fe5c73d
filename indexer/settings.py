"""Plain settings for the indexer: no agent or LSP types, so any front end can fill them."""

from __future__ import annotations

from dataclasses import dataclass

#: Directories never indexed (matched by name at any depth).
DEFAULT_EXCLUDE_DIRS: tuple[str, ...] = (
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    "dist",
    "build",
    ".tox",
    ".pytest_cache",
    ".mypy_cache",
)

#: File globs never indexed (matched against the base name; a glob containing ``/`` is
#: matched against the workspace-relative path). Compiled artefacts, minified bundles,
#: source maps and lock files: large, generated, and noise in the model's map and in search.
DEFAULT_EXCLUDE_PATTERNS: tuple[str, ...] = (
    "*.pyc",
    "*.pyo",
    "*.pyd",
    "*.so",
    "*.dylib",
    "*.dll",
    "*.exe",
    "*.o",
    "*.a",
    "*.obj",
    "*.class",
    "*.jar",
    "*.min.js",
    "*.min.css",
    "*.map",
    "*.swp",
    ".DS_Store",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "Cargo.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
)

#: Held text beyond this many bytes is not kept; those files are searched on disk.
DEFAULT_MAX_TEXT_BYTES = 256_000_000


@dataclass(frozen=True)
class IndexSettings:
    """What to index and how. The agent builds this from its ``IndexerConfig``."""

    exclude_dirs: tuple[str, ...] = DEFAULT_EXCLUDE_DIRS
    exclude_patterns: tuple[str, ...] = DEFAULT_EXCLUDE_PATTERNS
    max_file_size: int = 1_000_000
    use_gitignore: bool = True
    #: List files with ``git ls-files`` when the root is in a git work tree.
    use_git: bool = True
    hold_text: bool = True
    max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES

    def key(self) -> str:
        """A stable text of everything that changes which files are indexed (for the cache)."""
        return repr(
            (
                sorted(self.exclude_dirs),
                sorted(self.exclude_patterns),
                self.max_file_size,
                self.use_gitignore,
            )
        )
