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


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    def _write(rel: str | bytes, content: str | bytes = "x\n") -> Path:
        return write_file(tmp_path, rel, content)

    return _write


def git_init(root: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    subprocess.run(["git", "init", "-q", str(root)], check=True)


@pytest.fixture(params=["walk", "git"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Run a test both on a plain folder (os.scandir walk) and on a git work tree."""
    if request.param == "git":
        git_init(tmp_path)
    return str(request.param)
