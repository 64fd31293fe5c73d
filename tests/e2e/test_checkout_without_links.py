"""A checkout made without symbolic links fails loudly, at import and at build, saying what to do.

``src/agentls/{agent,server,indexer,acp_agent,cli,langservers}`` are symbolic links to the
top-level folders. With git's ``core.symlinks`` false (the default on Windows without
Developer Mode) each is written as a small text file holding the link's target, and Python
and setuptools would otherwise just leave those packages out. The copy below is laid out the way git
writes it then.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agentls_e2e import REPO_ROOT

from agentls._links import LINKED

#: What each message must tell the user to do.
ADVICE = ("Developer Mode", "git config core.symlinks true", "git checkout -- src/agentls", "WSL")


def checkout_without_links(tmp_path: Path) -> Path:
    """The packaging files and ``src/agentls/`` with each link a plain file holding its target
    (no newline: what git writes)."""
    root = tmp_path / "checkout"
    package = root / "src" / "agentls"
    package.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO_ROOT / name, root / name)
    for entry in (REPO_ROOT / "src" / "agentls").iterdir():
        if entry.is_symlink():
            (package / entry.name).write_bytes(os.readlink(entry).encode())
        elif entry.is_file():
            shutil.copy2(entry, package / entry.name)
    assert sorted(p.name for p in package.iterdir() if p.is_file() and "." not in p.name) == sorted(
        LINKED
    ), "every link of the repository is one of agentls._links.LINKED"
    return root


def user_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def assert_explains(output: str) -> None:
    for name in LINKED:
        assert f"agentls/{name} is a plain file (holding '../../{name}')" in output, output
    for advice in ADVICE:
        assert advice in output, output


def test_importing_agentls_from_a_checkout_without_links_says_what_to_do(tmp_path: Path) -> None:
    root = checkout_without_links(tmp_path)
    done = subprocess.run(
        [sys.executable, "-P", "-c", "import agentls"],
        cwd=tmp_path,
        env={**user_env(), "PYTHONPATH": str(root / "src")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "ImportError: agentls cannot be built or imported from" in done.stderr, done.stderr
    assert_explains(done.stderr)


@pytest.mark.slow
def test_building_a_wheel_from_a_checkout_without_links_fails_and_says_what_to_do(
    tmp_path: Path,
) -> None:
    root = checkout_without_links(tmp_path)
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), str(root)],
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert_explains(done.stdout + done.stderr)
    assert not list(wheels.glob("*.whl"))
