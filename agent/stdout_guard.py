"""Keeping a protocol's stdout for the protocol alone (the LSP stream, the model worker's)."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO


def protect_stdout() -> BinaryIO:
    """The protocol's output stream; from now on fd 1 and ``sys.stdout`` write to stderr,
    so a stray ``print`` (or a library's banner) can never corrupt the stream."""
    sys.stdout.flush()
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(out_fd, "wb", buffering=0)
