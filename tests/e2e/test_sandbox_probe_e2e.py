"""A bwrap that cannot start, as on a GitHub runner (Ubuntu 24.04 restricts unprivileged
user namespaces through AppArmor), through the real CLI and the real server: the first
thing the user sees names the cause and the sysctl that lifts it, and commands run as they
do without a sandbox, saying so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agentls_e2e import NEOVIM, LspFactory, llm_options
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)

FIX = "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"
MODEL = "probe-model"


@pytest.fixture
def path_with_refused_bwrap(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH whose bwrap fails the way AppArmor's restriction makes it fail."""
    directory = tmp_path_factory.mktemp("bin-refused-bwrap")
    for program in ("sh", "bash", "git", "env", "python3", "echo", "true", "cat"):
        found = shutil.which(program)
        if found:
            (directory / program).symlink_to(found)
    bwrap = directory / "bwrap"
    bwrap.write_text(
        "#!/bin/sh\n"
        'echo "bwrap: setting up uid map: Permission denied" >&2\n'
        'echo "bwrap: No permissions to creating new namespace" >&2\n'
        "exit 1\n"
    )
    bwrap.chmod(0o755)
    return str(directory)


def test_the_cli_names_the_cause_and_the_fix_and_runs_unconfined(
    tmp_path: Path, scripted: ScriptedModelServer, path_with_refused_bwrap: str
) -> None:
    scripted.add(MODEL, tool_call("execute_command", {"command": "echo hello"}), text("done"))
    ws = tmp_path / "ws"
    ws.mkdir()
    model = ["--model", f"openai/{MODEL}", "--api-base", scripted.api_base]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PATH": path_with_refused_bwrap}
    done = subprocess.run(
        [sys.executable, "-m", "agentls", "run", "say hello", "--mode", "yolo", *model],
        cwd=ws,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr
    first = next(line for line in done.stderr.splitlines() if line.startswith("agentls:"))
    assert "commands cannot be sandboxed" in first, done.stderr
    assert "setting up uid map: Permission denied" in first
    assert f"`{FIX}`" in first
    messages = scripted.requests_for(MODEL)[-1].messages
    [told] = [str(m["content"]) for m in messages if m["role"] == "tool"]
    assert "hello" in told and "(no sandbox: bubblewrap cannot start here)" in told


async def test_the_editor_warns_with_the_cause_and_the_fix(
    lsp: LspFactory, scripted: ScriptedModelServer, path_with_refused_bwrap: str
) -> None:
    client = await lsp(
        caps=NEOVIM, init_options=llm_options(scripted), env={"PATH": path_with_refused_bwrap}
    )
    await client.wait_for(
        lambda: any("cannot be sandboxed" in m.message for m in client.messages),
        what="the no-sandbox warning",
    )
    [warning] = [m for m in client.messages if "cannot be sandboxed" in m.message]
    assert warning.type == types.MessageType.Warning
    assert "setting up uid map: Permission denied" in warning.message
    assert f"`{FIX}`" in warning.message and "AppArmor" in warning.message
