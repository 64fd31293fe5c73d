"""What the benchmarks read of a process tree, from /proc (Linux): children, command lines,
status fields and open descriptors."""

from __future__ import annotations

import os


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time in ticks) of a process; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[19])


def children(pid: int) -> list[tuple[int, str]]:
    """The children of ``pid`` with their states (``Z``: a zombie), oldest first."""
    found: list[tuple[int, str, int]] = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None and stat[1] == pid:
            found.append((int(entry), stat[0], stat[2]))
    return [(child, state) for child, state, _ in sorted(found, key=lambda c: c[2])]


def descendants(pid: int) -> list[tuple[int, str]]:
    found = []
    for child, state in children(pid):
        found.append((child, state))
        found += descendants(child)
    return found


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def status_field(pid: int | None, name: str) -> int:
    if pid is None:
        return 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def child_named(pid: int, marks: tuple[str, ...]) -> int | None:
    return next(
        (c for c, state in children(pid) if state != "Z" and any(m in cmdline(c) for m in marks)),
        None,
    )
