"""A workspace's stdio MCP server whose script changes after the user approved it: the
language server's pool asks again before the next run (and stops the old server when the
user says no), and a restart after a crash does not run the changed script unasked. The
server is the SDK-based test server copied into the workspace as ``srv.py``; nothing is
mocked."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from program_answers import ProgramAnswers

from agentls.agent.config.models import AppConfig, MCPConfig
from agentls.agent.mcp import MCPPool
from tests.integration.test_mcp_stdio import until

pytestmark = pytest.mark.timeout(300)

SERVER_SCRIPT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "mcp_server.py"


def workspace_with_server(root: Path) -> AppConfig:
    shutil.copy(SERVER_SCRIPT, root / "srv.py")
    entry = {"command": sys.executable, "args": ["srv.py", "--stdio"]}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": entry}}))
    config = AppConfig(mcp=MCPConfig(connect_timeout=30, call_timeout=30))
    config.workspace.root = root
    return config


def change_the_script(root: Path) -> None:
    script = root / "srv.py"
    script.write_text(script.read_text() + "\n# changed by the repository\n")


async def test_a_changed_script_is_asked_about_again_and_refused_stops_the_server(
    tmp_path: Path, user_config_dir: Path
) -> None:
    config = workspace_with_server(tmp_path)
    approve = ProgramAnswers(True, False)
    asked = approve.asked
    pool = MCPPool()
    warnings: list[str] = []
    try:
        registry = await pool.registry_for(config, warn=warnings.append, approver=approve)
        assert registry is not None and registry.has_tool("mcp_srv_add"), warnings
        assert [item.changed for item in asked] == [False]
        lines = asked[0].lines
        assert any(line.startswith("runs or reads workspace file srv.py") for line in lines)
        registry = await pool.registry_for(config, warn=warnings.append, approver=approve)
        assert registry is not None and len(asked) == 1  # approved: not asked again

        change_the_script(tmp_path)
        registry = await pool.registry_for(config, warn=warnings.append, approver=approve)
        assert [item.changed for item in asked] == [False, True]
        assert registry is None  # refused: no tools, and the old server is stopped
        assert any("you did not allow it" in w for w in warnings), warnings
    finally:
        await pool.aclose()


async def test_a_restart_after_the_script_changed_does_not_run_it(
    tmp_path: Path, user_config_dir: Path
) -> None:
    config = workspace_with_server(tmp_path)
    allow = ProgramAnswers(then=True)
    pool = MCPPool()
    try:
        registry = await pool.registry_for(config, warn=lambda _: None, approver=allow)
        assert registry is not None
        add = registry.get("mcp_srv_add")
        assert (await add.run(add.args_model.model_validate({"a": 1, "b": 2}), None)).output == "3"  # type: ignore[arg-type]
        manager = pool._manager
        assert manager is not None
        [connection] = manager.connections
        assert connection.pid is not None
        change_the_script(tmp_path)
        os.kill(connection.pid, signal.SIGKILL)
        await until(lambda: not connection.connected, "the connection to notice the kill")
        result = await add.run(add.args_model.model_validate({"a": 1, "b": 2}), None)  # type: ignore[arg-type]
        assert not result.success
        assert "changed since you approved it" in result.output
    finally:
        await pool.aclose()


@pytest.fixture(autouse=True)
def no_server_left(request: pytest.FixtureRequest) -> Iterator[None]:
    from agentls.agent.mcp import stdio

    yield
    assert stdio._live_groups == {}, f"{request.node.name} left MCP servers running"
