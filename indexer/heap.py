"""Returning freed heap memory to the system.

A long-lived process that built something large (an index, the symbols of a tree) and
freed the scaffolding keeps the freed pages: glibc's allocator returns them only from the
top of a heap, or when asked. ``malloc_trim(0)`` asks, for every heap (the main one and
those of threads). Elsewhere (musl, macOS, Windows) nothing is done.
"""

from __future__ import annotations

import contextlib
import ctypes


def release_freed_memory() -> None:
    """Return freed heap pages to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)
