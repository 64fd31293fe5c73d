"""``python -m agentls.indexer.symbols_process``: a workspace's symbols in a process of
their own.

Parsing every source file of a large tree leaves a long-lived process holding both the
symbols and what the parser freed but the allocator kept: on a 57k-file tree that was
about 70 MB of a language server that reads its symbols a few times a run. Here they
belong to a child that serves the map and the lookups; the server sends what it indexes
(each file's path, size and mtime) and asks, one JSON line each way (the envelope of
``agentls.child_rpc``). The child reads the
files itself, keeps the same disk cache, and exits when its stdin closes.

Requests, one JSON object a line on stdin:

- ``{"op": "files", "root", "cache", "reset", "copied_from", "put": [[path, size, ext,
  language, lines, mtime_ns], ...], "removed": [path, ...]}``: what changed in the index
  (with ``reset``, ``put`` is every file and the rest is forgotten; ``copied_from``,
  optional, ``{"root", "cache"}``: the tree this one is a copy of and its symbol cache,
  see ``CopiedTree``). No reply.
- ``{"id", "op": "filled", "timeout"}``: whether the first fill is done, waiting up to
  ``timeout`` seconds for it.
- ``{"id", "op": "map", "prompt", "open_paths", "recent_paths", "max_tokens"}``: the
  ranked map (a string).
- ``{"id", "op": "definitions", "name", "kind"}``, ``{"id", "op": "references",
  "name"}`` and ``{"id", "op": "search", "query", "limit"}`` (fuzzy, best first): hits as
  ``[path, line, kind, name, text]`` rows.

Each request with an ``id`` gets ``{"id", "result"}`` or ``{"id", "error"}``. Once the
first fill is done (its symbols in the cache), the child says ``{"kind": "ready"}``: from
then on the server may stop it when idle, and a new child reads the cache back.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from agentls.child_wire import decode, encode
from agentls.indexer.heap import release_freed_memory
from agentls.indexer.index import FileInfo, RepoIndex
from agentls.indexer.repomap import CopiedTree, MapFocus, SymbolIndex, render_map

log = logging.getLogger("agentls.indexer.symbols_process")


class SymbolServer:
    """The child's state: a RepoIndex of file metadata (no text) and its SymbolIndex."""

    def __init__(self, on_filled: Callable[[], None] = lambda: None) -> None:
        """``on_filled`` is called (on a thread of its own) once the first fill is done."""
        self.index: RepoIndex | None = None
        self.symbols: SymbolIndex | None = None
        self._on_filled = on_filled

    def handle(self, request: dict[str, Any]) -> Any:
        op = request.get("op")
        if op == "files":
            self._files(request)
            return None
        symbols = self.symbols
        if symbols is None:
            raise LookupError("no files yet")
        if op == "filled":
            return symbols.wait_filled(float(request.get("timeout", 0)))
        if op == "map":
            focus = MapFocus(
                prompt=str(request.get("prompt", "")),
                open_paths=tuple(request.get("open_paths", ())),
                recent_paths=tuple(request.get("recent_paths", ())),
            )
            return render_map(symbols.files(), focus, int(request["max_tokens"]))
        if op == "definitions":
            hits = symbols.find_definitions(str(request["name"]), request.get("kind"))
        elif op == "references":
            hits = symbols.find_references(str(request["name"]))
        elif op == "search":
            hits = symbols.search_definitions(str(request["query"]), int(request["limit"]))
        else:
            raise ValueError(f"unknown op {op!r}")
        return [[h.path, h.line, h.kind, h.name, h.text] for h in hits]

    def give_back_memory(self, op: object) -> None:
        """After each map (and, on the fill's thread, once filled): what ranking and parsing
        freed, the allocator keeps for this process unless told to return it."""
        if op == "map":
            release_freed_memory()

    def _files(self, request: dict[str, Any]) -> None:
        # Each file's extension and language arrive as strings of their own: a few dozen
        # distinct values shared by tens of thousands of files (~5 MB on 50k files).
        intern = sys.intern
        infos = [
            FileInfo(path, size, intern(ext), intern(language), lines, mtime)
            for path, size, ext, language, lines, mtime in request.get("put", ())
        ]
        index = self.index
        if index is None or (request.get("reset") and str(index.root) != request["root"]):
            index = self.index = RepoIndex(request["root"], text=None)
            index.load(infos, None)
            index.start_generations()
            cache = request.get("cache")
            origin = request.get("copied_from")
            copied_from = (
                CopiedTree(Path(origin["root"]), Path(origin["cache"]))
                if isinstance(origin, dict)
                else None
            )
            self.symbols = SymbolIndex(
                index, Path(cache) if cache else None, copied_from=copied_from
            )
            symbols = self.symbols
            symbols.start()
            threading.Thread(
                target=self._announce_filled, args=(symbols,), name="filled", daemon=True
            ).start()
            return
        if request.get("reset"):
            keep = {info.path for info in infos}
            for path in [p for p in index.paths() if p not in keep]:
                index.remove(path)
        for info in infos:
            if index.get(info.path) != info:
                index.put(info)
        for path in request.get("removed", ()):
            index.remove(path)
        if self.symbols is not None:
            self.symbols.refresh()  # parse what changed now, before the next question

    def _announce_filled(self, symbols: SymbolIndex) -> None:
        symbols.wait_filled()
        release_freed_memory()  # what parsing or reading the cache freed
        if symbols is self.symbols:  # else a new tree's fill will say so
            self._on_filled()


def serve(lines: IO[bytes], out: IO[bytes]) -> None:
    writing = threading.Lock()  # replies here, the fill's "ready" from its thread

    def write(frame: dict[str, Any]) -> None:
        with writing:
            out.write(encode(frame))
            out.flush()

    def say_filled() -> None:
        with contextlib.suppress(OSError, ValueError):  # the server is gone: nobody to tell
            write({"kind": "ready"})

    server = SymbolServer(on_filled=say_filled)
    for line in lines:
        if not line.strip():
            continue
        request_id: Any = None
        try:
            request = decode(line)
            request_id = request.get("id")
            result = server.handle(request)
            server.give_back_memory(request.get("op"))
            reply: dict[str, Any] = {"id": request_id, "result": result}
        except Exception as exc:  # the server is told; the child keeps serving
            if request_id is None:
                log.warning("symbols: request failed: %s", exc, exc_info=True)
                continue
            reply = {"id": request_id, "error": f"{type(exc).__name__}: {exc}"}
        if request_id is not None:
            write(reply)


def main() -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
