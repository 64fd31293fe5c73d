"""Neovim 0.7 (Debian) as a real client of LspFileAccess.

Neovim cannot confirm annotated edits: the server asks with window/showMessageRequest
(the script answers), then sends a plain versioned edit that lands in the buffer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from edits_helpers import ensure_editors, run_editor

pytestmark = [pytest.mark.editor, pytest.mark.slow]

OLD = "def greet():\n    return 'hi'\n\n\nprint(greet())\n"
NEW = "def greet(name):\n    return f'hi {name}'\n\n\nprint(greet('you'))\n"


@pytest.fixture(scope="module", autouse=True)
def editors() -> None:
    ensure_editors()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(OLD, encoding="utf-8")
    return root


@pytest.mark.parametrize(("answer", "status"), [("Apply", "applied"), ("Reject", "rejected")])
async def test_nvim_confirms_through_show_message_request(
    workspace: Path, answer: str, status: str
) -> None:
    report = await run_editor(
        "nvim",
        workspace,
        file="app.py",
        method="test/apply",
        params={"path": "app.py", "newText": NEW, "confirm": True},
        answer=answer,
    )
    assert "script_error" not in report, report
    outcome = json.loads(report["result"])
    assert outcome["status"] == status, report
    assert report["questions"] == ["Apply edit to app.py (+3 −3)?"]
    assert report["buffer"] == (NEW if status == "applied" else OLD)
    assert report["modified"] is (status == "applied")
    assert (workspace / "app.py").read_text() == OLD  # left unsaved in the buffer


async def test_nvim_creates_a_file_in_a_new_buffer(workspace: Path) -> None:
    report = await run_editor(
        "nvim",
        workspace,
        file="app.py",
        method="test/apply",
        params={"path": "pkg/new.py", "newText": "x = 1\n", "confirm": False},
        answer="Apply",
    )
    assert "script_error" not in report, report
    outcome = json.loads(report["result"])
    assert outcome["status"] == "applied", report
    # Neovim 0.7 declares resourceOperations "create" but cannot do it: the server
    # retries with the insert alone, which Neovim puts in a new, unsaved buffer (with
    # an extra empty last line of its own).
    assert report["buffers"][str(workspace / "pkg" / "new.py")].rstrip("\n") == "x = 1"
    assert not (workspace / "pkg" / "new.py").exists()
