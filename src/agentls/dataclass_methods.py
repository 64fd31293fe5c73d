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
compiling it. The table is kept where the interpreter keeps agentls's own bytecode, in
its ``__pycache__``, under the interpreter's cache tag, and read with ``marshal`` as a
``.pyc`` is: the same files, the same trust, gone with the installation, and not written
under ``PYTHONDONTWRITEBYTECODE``. A table that cannot be read is ignored, one that cannot
be written is not kept: either way the dataclasses compile their methods as they always
did.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
import threading
from pathlib import Path
from types import CodeType
from typing import Any

#: A table past this size starts over (source texts of classes no longer defined pile
#: up over upgrades of other packages); it holds ~1 MB for agentls's own start.
MAX_TABLE_BYTES = 8 * 1024 * 1024

_lock = threading.Lock()
_known: dict[str, CodeType] = {}
_compiled: dict[str, CodeType] = {}
_looked_up: set[str] = set()
_table: Path | None = None
_writable = False


def table_path() -> Path | None:
    """Where this interpreter's table lives, or None for one without bytecode caches."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    return Path(__file__).parent / "__pycache__" / f"dataclass_methods.{tag}.marshal"


def install(at: Path | None = None) -> None:
    """Give ``dataclasses`` the caching ``exec``, with the table at ``at`` (by default
    ``table_path()``) read, and written at exit; idempotent. As with ``.pyc`` files,
    ``PYTHONDONTWRITEBYTECODE`` keeps the default table from being written, not read."""
    global _table, _writable
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _table = at or table_path()
    _writable = at is not None or not sys.dont_write_bytecode
    if _table is not None:
        _known.update(_read(_table))
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(save)


def save() -> None:
    """Write the table, with what this process compiled, when it compiled anything."""
    with _lock:
        if _table is None or not _writable or not _compiled:
            return
        table = {**_known, **_compiled}
        here = _looked_up | _compiled.keys()
        _known.update(_compiled)
        _compiled.clear()
    import tempfile  # at exit, not at every start

    with contextlib.suppress(OSError, ValueError):  # no table kept: nothing is lost
        data = marshal.dumps(table)
        if len(data) > MAX_TABLE_BYTES:
            data = marshal.dumps({source: table[source] for source in here})
        _table.parent.mkdir(exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=_table.parent, prefix=".dataclass_methods.")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            # Readable by whoever may read the bytecode beside it (a temporary file is
            # its owner's only).
            os.chmod(temporary, Path(__file__).stat().st_mode & 0o666)
            os.replace(temporary, _table)  # whole or not at all, whoever else writes it
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    if globals is None:  # the caller's globals, which the builtin would take: dataclasses'
        globals = vars(dataclasses)
    if not isinstance(source, str):
        builtins.exec(source, globals, locals)
        return
    with _lock:  # a class may be defined in any thread, and ``save`` copies these
        code = _known.get(source)
        if code is not None:
            _looked_up.add(source)
        else:
            code = _compiled.get(source)
    if code is None:
        # As the builtin compiles it when called from dataclasses, whose module has no
        # ``__future__`` imports: no flags inherited from here.
        code = compile(source, "<string>", "exec", dont_inherit=True)
        with _lock:
            _compiled[source] = code
    builtins.exec(code, globals, locals)


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
