"""One harness for every folder of tests/fixtures/patches (see the README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.errors import PatchError
from agentls.agent.patch import apply_patch

FIXTURES = Path(__file__).parents[3] / "fixtures" / "patches"
SCENARIOS = sorted(path for path in FIXTURES.iterdir() if path.is_dir())


def _tree(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def _run(workspace: Path, patch: str) -> None:
    """Apply as a tool would: read from disk, write only once everything applied."""

    def read(path: str) -> str | None:
        target = workspace / path
        return target.read_bytes().decode() if target.is_file() else None

    for path, text in apply_patch(patch, read).items():
        if text is None:
            (workspace / path).unlink()
        else:
            _write(workspace, {path: text.encode()})


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 45


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[path.name for path in SCENARIOS])
def test_scenario(scenario: Path, tmp_path: Path) -> None:
    before = _tree(scenario / "before")
    _write(tmp_path, before)
    # Bytes, not text mode: CRLF in the patch and in the files must reach the engine as is.
    patch = (scenario / "patch").read_bytes().decode()
    error_file = scenario / "error"
    if error_file.exists():
        with pytest.raises(PatchError) as caught:
            _run(tmp_path, patch)
        assert error_file.read_text().strip() in str(caught.value)
        assert _tree(tmp_path) == before
    else:
        _run(tmp_path, patch)
        assert _tree(tmp_path) == _tree(scenario / "after")
