"""Emacs 28 + eglot 1.9 (Debian) as a real client of LspFileAccess.

eglot declares neither change annotations nor window.showMessage; it asks its own
y-or-n-p before every server edit and answers a "no" with a JSON-RPC error, which the
server reports as a rejection. The server is told so with ``clientConfirms``.
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


@pytest.mark.parametrize(("answer", "status"), [("yes", "applied"), ("no", "rejected")])
async def test_eglot_confirms_with_its_own_prompt(
    workspace: Path, answer: str, status: str
) -> None:
    report = await run_editor(
        "emacs",
        workspace,
        file="app.py",
        method="test/apply",
        params={"path": "app.py", "newText": NEW, "confirm": True, "clientConfirms": True},
        answer=answer,
    )
    assert report["error"] is None, report
    outcome = json.loads(report["result"])
    assert outcome["status"] == status, report
    assert len(report["questions"]) == 1 and "Proceed?" in report["questions"][0]
    assert report["buffer"] == (NEW if status == "applied" else OLD)
    if status == "rejected":
        assert "User cancelled server edit" in outcome["message"]
    assert (workspace / "app.py").read_text() == OLD  # left unsaved in the buffer


async def test_eglot_without_client_confirmation_is_refused(workspace: Path) -> None:
    report = await run_editor(
        "emacs",
        workspace,
        file="app.py",
        method="test/apply",
        params={"path": "app.py", "newText": NEW, "confirm": True},
        answer="yes",
    )
    outcome = json.loads(report["result"])
    assert outcome["status"] == "rejected", report
    assert "cannot ask" in outcome["message"]
    assert report["questions"] == []
    assert report["buffer"] == OLD
