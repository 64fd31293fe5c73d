from __future__ import annotations

from pathlib import Path

import pytest
from idx_helpers import Writer, git_init, write_file


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    def _write(rel: str | bytes, content: str | bytes = "x\n") -> Path:
        return write_file(tmp_path, rel, content)

    return _write


@pytest.fixture(params=["walk", "git"])
def mode(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Run a test both on a plain folder (os.scandir walk) and on a git work tree."""
    if request.param == "git":
        git_init(tmp_path)
    return str(request.param)
