"""The workspace where text search is wrong, and basedpyright to navigate it.

tests/fixtures/workspaces/semantic: two classes with a ``save`` method (``Store`` and
``Cache``), ``api.py`` re-exporting ``Store``, ``app.py`` importing it from there under
another name (``Shelf``), ``jobs.py`` importing it directly; ``shapes.py`` a method that a
subclass implements. ``Store.save`` is used on
app.py:8 and jobs.py:7; ``Cache.save`` on app.py:9. Shared by the headless, LSP and ACP
tests and by bench/semantic_tools.py.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "workspaces" / "semantic"
FAKE_SERVER = REPO / "tests" / "integration" / "fake_language_server.py"

#: Where ``Store.save`` is, and each use of it (workspace path, 1-based line).
STORE_SAVE = ("models.py", 5)
STORE_SAVE_USES = {("app.py", 8), ("jobs.py", 7)}
#: What a search by name adds: ``Cache.save`` and its use.
CACHE_SAVE = {("models.py", 10), ("app.py", 9)}


@functools.cache
def language_server_bin() -> Path:
    """The bin directory holding basedpyright-langserver (scripts/ensure_language_servers.sh
    installs it under .cache/ on first use, with a file lock)."""
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "ensure_language_servers.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "AGENTLS_PYTHON": sys.executable},
    )
    assert done.returncode == 0, f"ensure_language_servers.sh failed:\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1])


def path_with_language_servers() -> str:
    return f"{language_server_bin()}{os.pathsep}{os.environ['PATH']}"


def semantic_workspace(parent: Path) -> Path:
    """A copy of the fixture under ``parent`` (``parent/ws``)."""
    root = parent / "ws"
    shutil.copytree(FIXTURE, root)
    return root
