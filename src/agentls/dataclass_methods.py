"""The methods ``dataclasses`` generates, compiled once per installation instead of at
every start.

The standard library writes each dataclass's ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` (and a frozen one's ``__setattr__``/``__delattr__``) as source text and
compiles it with the builtin ``exec`` while the class is defined. agentls defines some 220
dataclasses on the way to its first model request (pydantic and httpx's dependencies a few
dozen more); compiling their ~1,000 small functions was a quarter of a start, ~0.17 s
measured on a 0.7 s ``agentls acp`` start.

A compiled function depends only on its source text (the module's globals and the
class's objects are passed in when it runs), so ``install`` gives the ``dataclasses``
module its own ``exec``, which looks the text up in a table of code objects before
compiling it, one table per top-level package that defines the class. The tables are
kept where the interpreter keeps agentls's own bytecode, in its ``__pycache__``, under the
interpreter's cache tag, and read with ``marshal`` as a ``.pyc`` is: the same files, the
same trust, gone with the installation, and not written under
``PYTHONDONTWRITEBYTECODE``. A table that cannot be read is ignored, one that cannot be
written is not kept: either way the dataclasses compile their methods as they always
did.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from types import CodeType
from typing import Any

#: A table past this size starts over (source texts of classes no longer defined pile
#: up over upgrades); agentls's own holds ~0.7 MB, litellm's ~2 MB.
MAX_TABLE_BYTES = 8 * 1024 * 1024

#: A top-level package's name, which names its table's file; classes of ``__main__`` and
#: of modules without such a name compile as they always did.
_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class _Tables:
    """The tables of one process: one per top-level package that defines dataclasses
    (``agentls``, ``pydantic``, ``litellm``...), each read at its package's first class,
    so a process that never imports litellm never reads litellm's ~2 MB."""

    def __init__(self, directory: Path, writable: bool) -> None:
        self.directory = directory
        self.writable = writable
        self.lock = threading.Lock()
        self.known: dict[str, dict[str, CodeType]] = {}
        self.compiled: dict[str, dict[str, CodeType]] = {}
        self.looked_up: dict[str, set[str]] = {}

    def path(self, package: str) -> Path | None:
        tag = sys.implementation.cache_tag
        if tag is None:  # an interpreter without bytecode caches
            return None
        return self.directory / f"dataclass_methods.{tag}.{package}.marshal"

    def code(self, package: str, source: str) -> CodeType:
        with self.lock:  # a class may be defined in any thread, and ``save`` copies these
            known = self.known.get(package)
            if known is None:
                path = self.path(package)
                known = self.known[package] = _read(path) if path is not None else {}
            code = known.get(source)
            if code is not None:
                self.looked_up.setdefault(package, set()).add(source)
                return code
            code = self.compiled.get(package, {}).get(source)
        if code is None:
            # As the builtin compiles it when called from dataclasses, whose module has no
            # ``__future__`` imports: no flags inherited from here.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            with self.lock:
                self.compiled.setdefault(package, {})[source] = code
        return code

    def save(self) -> None:
        """Write each table this process compiled anything for."""
        if not self.writable:
            return
        with self.lock:
            changed = {
                package: (
                    {**self.known.get(package, {}), **compiled},
                    self.looked_up.get(package, set()) | compiled.keys(),
                )
                for package, compiled in self.compiled.items()
                if compiled
            }
            for package, compiled in self.compiled.items():
                self.known.setdefault(package, {}).update(compiled)
            self.compiled.clear()
        for package, (table, here) in changed.items():
            path = self.path(package)
            if path is not None:
                _write(path, table, here)


_tables: _Tables | None = None


def table_directory() -> Path:
    """Where the tables live: beside agentls's own bytecode."""
    return Path(__file__).parent / "__pycache__"


def install(at: Path | None = None) -> None:
    """Give ``dataclasses`` the caching ``exec``, its tables in the directory ``at`` (by
    default ``table_directory()``), read as packages define their first class and written
    at exit; idempotent. As with ``.pyc`` files, ``PYTHONDONTWRITEBYTECODE`` keeps the
    default tables from being written, not read."""
    global _tables
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _tables = _Tables(at or table_directory(), at is not None or not sys.dont_write_bytecode)
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(save)


def save() -> None:
    """Write the tables, with what this process compiled, where it compiled anything."""
    if _tables is not None:
        _tables.save()


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    if globals is None:  # the caller's globals, which the builtin would take: dataclasses'
        globals = vars(dataclasses)
    package = str(globals.get("__name__") or "").partition(".")[0]
    if (
        _tables is None
        or not isinstance(source, str)
        or package == "__main__"
        or not _PACKAGE.match(package)
    ):
        builtins.exec(source, globals, locals)
        return
    builtins.exec(_tables.code(package, source), globals, locals)


def _read(path: Path) -> dict[str, CodeType]:
    try:
        table = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        source: code
        for source, code in table.items()
        if isinstance(source, str) and isinstance(code, CodeType)
    }


def _write(path: Path, table: dict[str, CodeType], here: set[str]) -> None:
    import tempfile  # at exit, not at every start

    with contextlib.suppress(OSError, ValueError):  # no table kept: nothing is lost
        data = marshal.dumps(table)
        if len(data) > MAX_TABLE_BYTES:
            data = marshal.dumps({source: table[source] for source in here})
        path.parent.mkdir(exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".dataclass_methods.")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            # Readable by whoever may read the bytecode beside it (a temporary file is
            # its owner's only).
            os.chmod(temporary, Path(__file__).stat().st_mode & 0o666)
            os.replace(temporary, path)  # whole or not at all, whoever else writes it
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
