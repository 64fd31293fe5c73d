"""Fixtures for the agent's unit tests that run real programs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentls.agent import sandbox as sandbox_module

REPO = Path(__file__).parents[3]


@pytest.fixture(scope="session")
def bwrap() -> str:
    """Real bubblewrap, installed through scripts/ensure_bwrap.sh when it is missing;
    AGENTLS_SKIP_SANDBOX_TESTS=1 skips the tests that need it."""
    if os.environ.get("AGENTLS_SKIP_SANDBOX_TESTS") == "1":
        pytest.skip("AGENTLS_SKIP_SANDBOX_TESTS=1")
    subprocess.run(["bash", str(REPO / "scripts" / "ensure_bwrap.sh")], check=True)
    found = sandbox_module.find_bwrap()
    assert found, "ensure_bwrap.sh ran but bwrap is not on PATH"
    return found
