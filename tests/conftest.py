"""Fixtures shared by every test: a scripted model server and adapters pointed at it."""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import LiteLLMAdapter, RetryPolicy
from agentls.agent.llm.scripted_server import ScriptedModelServer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Never the developer's own user config or trust list: every process a test starts
# inherits this, and each test gets a fresh one below.
os.environ["AGENTLS_CONFIG_DIR"] = tempfile.mkdtemp(prefix="agentls-user-config-")

FAST_RETRY = RetryPolicy(base_delay=0.001, max_delay=0.01)

# Inputs of tests, not tests: the patch fixtures hold repositories' own files, some of them
# named like tests (store_test.py).
collect_ignore = ["fixtures"]


REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def bwrap() -> str:
    """Real bubblewrap, installed through scripts/ensure_bwrap.sh when it is missing;
    AGENTLS_SKIP_SANDBOX_TESTS=1 skips the tests that need it."""
    from agentls.agent.exec.sandbox import find_bwrap

    if os.environ.get("AGENTLS_SKIP_SANDBOX_TESTS") == "1":
        pytest.skip("AGENTLS_SKIP_SANDBOX_TESTS=1")
    subprocess.run(["bash", str(REPO / "scripts" / "ensure_bwrap.sh")], check=True)
    found = find_bwrap()
    assert found, "ensure_bwrap.sh ran but bwrap is not on PATH"
    return found


@pytest.fixture
def path_without_bwrap(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH with the programs runs need (a shell, git, python) and no bubblewrap: what a
    machine without it, or macOS, looks like to agentls."""
    import shutil

    directory = tmp_path_factory.mktemp("bin-without-bwrap")
    for program in ("sh", "bash", "git", "env", "python3"):
        found = shutil.which(program)
        if found:
            (directory / program).symlink_to(found)
    return str(directory)


@pytest.fixture
def host_socket() -> Iterator[Path]:
    """A real unix socket server under /run, where host services keep theirs."""
    import socket

    if not os.access("/run", os.W_OK):
        pytest.skip("cannot create a socket under /run as this user")
    path = Path("/run") / f"agentls-test-{os.getpid()}-{uuid.uuid4().hex[:6]}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(8)  # connections wait in the backlog: nothing needs to accept them
    yield path
    server.close()
    path.unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def user_config_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh, empty user config directory (``config.yaml``, ``trust.json``) per test."""
    directory = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("AGENTLS_CONFIG_DIR", str(directory))
    return directory


@pytest.fixture
def trust_folder(user_config_dir: Path) -> Callable[..., None]:
    """``trust_folder(path)``: what a user does to let a folder's own config and MCP
    servers apply (``agentls trust`` then ``agentls mcp approve --all``)."""
    from agentls.agent.config.trust import TrustStore
    from agentls.agent.mcp.approval import approve_workspace_servers

    def trust(folder: Path, *, approve_mcp: bool = True) -> None:
        TrustStore().set_trusted(folder, True)
        if approve_mcp:
            approve_workspace_servers(folder)

    return trust


@pytest.fixture
def scripted() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


AdapterFactory = Callable[..., tuple[LiteLLMAdapter, str]]


@pytest.fixture
def adapter_for(scripted: ScriptedModelServer) -> AdapterFactory:
    """``adapter_for(**llm_config)`` -> (adapter, queue name) with a fresh model queue."""

    def make(**overrides: Any) -> tuple[LiteLLMAdapter, str]:
        name = overrides.pop("name", None) or f"m-{uuid.uuid4().hex[:8]}"
        settings: dict[str, Any] = {
            "model": f"openai/{name}",
            "api_base": scripted.api_base,
            "timeout": 10,
            "retries": 1,
            **overrides,
        }
        return LiteLLMAdapter(LLMConfig(**settings), retry_policy=FAST_RETRY), name

    return make
