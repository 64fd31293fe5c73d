"""Helpers shared by the indexer tests (a uniquely named module: ``conftest`` is ambiguous
when several test folders have one)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Writer = Callable[..., Path]


def write_file(root: Path, rel: str | bytes, content: str | bytes = "x\n") -> Path:
    path = Path(os.fsdecode(os.path.join(os.fsencode(root), os.fsencode(rel))))
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def git_init(root: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
