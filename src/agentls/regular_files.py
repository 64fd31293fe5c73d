"""Reading a file of the workspace: regular files only, never blocking, never through a link.

Anything inside the workspace may have been made by a command the agent ran, and a command
can ``mkfifo``: an ``open()`` of a FIFO blocks until a writer comes, forever, and a read
of a character device (``/dev/zero`` through a link) never ends. So a workspace file is
opened with ``O_NONBLOCK`` (opening a FIFO returns at once) and ``O_NOFOLLOW`` (a link
put in place of the file after its path was checked is refused), then ``fstat`` on the
open descriptor decides: only a regular file is read. The engine and the indexer both
read through here (the indexer may not import the engine, so this sits above both).
"""

from __future__ import annotations

import errno
import os
import stat

#: What a non-regular file is, for the message that refuses it.
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link"),
)

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


class NotRegularFileError(OSError):
    """The path is a FIFO, socket, device, directory or link: it is not read."""


def kind_of(mode: int) -> str:
    """``a FIFO (named pipe)``, ``a socket``, ...: what a file of ``mode`` is."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """An open descriptor of ``path`` and its ``fstat``, when it is a regular file.

    Raises ``NotRegularFileError`` for anything else (the descriptor is closed), and the
    ``OSError`` of ``open`` otherwise (``ELOOP`` when the last component is a link)."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFileError(
                f"{os.fspath(path)} is a symbolic link: not followed"
            ) from None
        raise
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotRegularFileError(
            f"{os.fspath(path)} is {kind_of(info.st_mode)}, not a regular file: not read"
        )
    return fd, info


def read_fd(fd: int, limit: int | None = None) -> bytes:
    """Everything of ``fd`` (up to ``limit`` bytes when given)."""
    parts: list[bytes] = []
    got = 0
    while limit is None or got < limit:
        want = 1 << 20 if limit is None else min(1 << 20, limit - got)
        chunk = os.read(fd, want)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), read without blocking
    on a special file or following a link at its end (``NotRegularFileError``)."""
    fd, _ = open_regular(path)
    try:
        return read_fd(fd, limit)
    finally:
        os.close(fd)
