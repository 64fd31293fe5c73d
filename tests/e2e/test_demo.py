"""The README's first Quickstart command: `agentls demo` drives the real server over stdio."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

AGENTLS = shutil.which("agentls") or str(Path(__file__).resolve().parents[2] / ".venv/bin/agentls")


@pytest.mark.slow
def test_demo_runs_through_the_language_server() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("AGENTLS_MODEL", "AGENTLS_API_BASE")}
    done = subprocess.run(
        [AGENTLS, "demo"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    err = done.stderr
    assert "replies are SCRIPTED" in err  # says plainly that no real model is used
    assert "+    return sum(values) / len(values)" in err  # the edit shown as a diff
    assert "auto-accepted: no terminal" in err
    assert "▶ step 2/20 edit_file path=stats.py" in err
    assert "Status: success" in err
    # Nothing of the libraries' own chatter ("Ignoring notification for unknown method").
    assert "Ignoring notification" not in err and "unknown method" not in err
    workspace = Path(err.split("Workspace: ", 1)[1].split("\n", 1)[0])
    fixed = (workspace / "stats.py").read_text()  # the demo client, as the editor, applied it
    assert "return sum(values) / len(values)\n" in fixed
