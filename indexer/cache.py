"""The index on disk as JSON: a fast start when the tree has not changed.

An entry is used when it is younger than the TTL *and* its signature (settings,
paths, sizes and mtimes) equals the current one. Anything unreadable, of another
format or for another root is ignored and later overwritten: never an error.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agentls.indexer.index import FileInfo, RepoIndex

FORMAT = 1
DEFAULT_TTL = 300.0


class IndexCache:
    """One cache file (the agent puts it under ``<workspace>/.agentls/cache/``)."""

    def __init__(self, path: Path | str, ttl: float = DEFAULT_TTL) -> None:
        self.path = Path(path)
        self.ttl = ttl

    def load(self, root: Path | str, signature: str) -> RepoIndex | None:
        try:
            with open(self.path, encoding="ascii") as fh:
                data = json.load(fh)
            return self._decode(data, root, signature)
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            return None

    def _decode(self, data: Any, root: Path | str, signature: str) -> RepoIndex | None:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        age = time.time() - float(data["created"])
        if not 0 <= age < self.ttl or data["signature"] != signature:
            return None
        if data["root"] != os.path.realpath(root):
            return None
        index = RepoIndex(root, build_time_ms=float(data["build_time_ms"]), source="cache")
        intern = sys.intern  # a few dozen values shared by every file (see split_ext)
        for path, size, ext, language, lines, mtime_ns in data["files"]:
            index.put(FileInfo(path, size, intern(ext), intern(language), lines, mtime_ns))
        for path, reason in data["other"].items():
            index.put_other(path, reason)
        index.skipped.update(data["skipped"])
        return index

    def save(self, index: RepoIndex, signature: str) -> None:
        """Write atomically; a failure to write only costs the next start its speed."""
        data = {
            "format": FORMAT,
            "created": time.time(),
            "signature": signature,
            "root": str(index.root),
            "build_time_ms": index.build_time_ms,
            "files": [
                [f.path, f.size, f.ext, f.language, f.lines, f.mtime_ns] for f in index.files
            ],
            "other": index.other_paths,
            "skipped": dict(index.skipped),
        }
        write_json_atomically(self.path, data, prefix=".index-")


def write_json_atomically(path: Path, data: object, *, prefix: str) -> None:
    """Write ``data`` as compact JSON to ``path`` through a temporary file in the same
    folder, so that a reader sees the old file or the new one, never half of one. A cache
    that cannot be written only costs the next start its speed: OSError is swallowed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=path.parent)
        try:
            # ensure_ascii keeps surrogate-escaped (non-UTF-8) names round-tripping.
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                json.dump(data, fh, ensure_ascii=True, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
