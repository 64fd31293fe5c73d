"""The workspace map as text for the system prompt, always within a character budget."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentls.indexer.index import RepoIndex

TRUNCATED = "… (tree truncated)"


def display(path: str) -> str:
    """A path safe to show: undecodable bytes of a file name become U+FFFD."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _langs(counts: Mapping[str, int], limit: int = 4) -> str:
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return ", ".join(f"{name} {count}" for name, count in items)


def _header(index: RepoIndex) -> str:
    langs = _langs(index.languages, 6)
    summary = f"{index.total_files} files, {index.total_lines} lines"
    return f"{summary}; {langs}" if langs else summary


def _nested(paths: list[str]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path in paths:
        node = tree
        parts = path.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part + "/", {})
        node[parts[-1]] = None
    return tree


def _render(node: dict[str, Any], prefix: str, out: list[str]) -> None:
    # Directories first, then files, each alphabetically: the usual `tree` reading order.
    names = sorted(node, key=lambda n: (not n.endswith("/"), n))
    for i, name in enumerate(names):
        last = i == len(names) - 1
        out.append(f"{prefix}{'└── ' if last else '├── '}{display(name)}")
        child = node[name]
        if child is not None:
            _render(child, prefix + ("    " if last else "│   "), out)


def _bounded(lines: list[str], max_chars: int) -> str:
    out: list[str] = []
    used = 0
    for line in lines:
        room = max_chars - len(TRUNCATED) - 1 - used
        if len(line) + 1 > room:
            if room > 40:  # a long single line (top-level files): keep its start
                out.append(line[: room - 1])
            out.append(TRUNCATED)
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def format_tree(index: RepoIndex, *, max_chars: int = 12_000, detailed_limit: int = 300) -> str:
    """A detailed tree up to ``detailed_limit`` files, a per-directory summary beyond."""
    paths = index.paths()
    lines = [f"./ ({_header(index)})"]
    if len(paths) <= detailed_limit:
        _render(_nested(paths), "", lines)
        return _bounded(lines, max_chars)

    per_dir: dict[str, Counter[str]] = {}
    top_files: list[str] = []
    for info in index.files:
        head, sep, _ = info.path.partition("/")
        if not sep:
            top_files.append(info.path)
            continue
        per_dir.setdefault(head, Counter())[info.language] += 1
    lines.append("Top-level directories (files; main languages):")
    for name in sorted(per_dir, key=lambda d: (-sum(per_dir[d].values()), d)):
        counts = per_dir[name]
        lines.append(f"  {display(name)}/ ({sum(counts.values())}; {_langs(counts, 3)})")
    if top_files:
        lines.append("Top-level files: " + ", ".join(display(p) for p in top_files))
    return _bounded(lines, max_chars)
