"""Local MCP servers over stdio, the workspace's MCP files, and the SSE transport.

Servers: the SDK-based test server (tests/fixtures/mcp_server.py --stdio / --sse) and a
real third-party server from PyPI, ``mcp-server-time``, installed in its own venv by
scripts/ensure_mcp_servers.sh (the first run installs it). The model is the scripted
model server. Nothing is mocked.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from program_answers import ProgramAnswers

from agentls.agent.config.models import AppConfig, MCPConfig, MCPServerConfig
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.mcp import MCPManager, MCPPool
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.tools import build_registry
from agentls.agent.workspace import DiskFileAccess

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
SERVER_SCRIPT = ROOT / "tests" / "fixtures" / "mcp_server.py"


def local_server(name: str = "local", *extra: str, **fields: Any) -> MCPServerConfig:
    return MCPServerConfig(
        name=name, command=sys.executable, args=[str(SERVER_SCRIPT), "--stdio", *extra], **fields
    )


def mcp_config(*servers: MCPServerConfig, **settings: Any) -> MCPConfig:
    settings.setdefault("connect_timeout", 30)
    settings.setdefault("call_timeout", 30)
    return MCPConfig(servers=list(servers), **settings)


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent that never reaps it counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def survivors(*pids: int) -> str:
    """For failure messages: the pids still running, with their stat line."""
    return "; ".join(
        f"{pid}: {Path(f'/proc/{pid}/stat').read_text()[:120]}" for pid in pids if alive(pid)
    )


async def until(condition: Any, what: Any, limit: float = 60.0) -> None:
    """Await ``condition()`` becoming true (polled), failing with ``what`` after ``limit``:
    how long to wait for something that should happen, not how fast it must (a loaded machine
    took over 20 s to see a killed server's processes gone)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            pytest.fail(f"timed out waiting for: {what() if callable(what) else what}")
        await asyncio.sleep(0.05)


def tool_messages(scripted: ScriptedModelServer, model: str, request: int) -> list[str]:
    messages = scripted.requests_for(model)[request].messages
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


@pytest.fixture(scope="session")
def third_party_bin() -> Path:
    """The bin directory of the venv holding the third-party MCP servers."""
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure_mcp_servers.sh")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"ensure_mcp_servers.sh failed:\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1])


# --- the SDK-based server over stdio ------------------------------------------------


async def test_stdio_tools_are_registered_and_called_with_env_and_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_TEST_SECRET", "s3cret")
    (tmp_path / "sub").mkdir()
    server = local_server(env={"GREETING": "hi ${env:AGENTLS_TEST_SECRET}"}, cwd="sub")
    async with MCPManager(mcp_config(server), workspace=tmp_path) as manager:
        registry = build_registry()
        names = manager.register(registry)
        assert manager.warnings == []
        assert {"mcp_local_add", "mcp_local_environment"} <= set(names)
        assert registry.get("mcp_local_add").sensitive
        env = registry.get("mcp_local_environment")
        result = await env.run(env.args_model.model_validate({"name": "GREETING"}), None)  # type: ignore[arg-type]
        assert result.output == f"GREETING=hi s3cret cwd={tmp_path / 'sub'}"
        # Only the configured variables reach the server, not the whole environment.
        result = await env.run(env.args_model.model_validate({"name": "AGENTLS_TEST_SECRET"}), None)  # type: ignore[arg-type]
        assert result.output.startswith("AGENTLS_TEST_SECRET=<unset>")


async def test_stderr_goes_to_the_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="agentls.mcp.server")
    async with MCPManager(mcp_config(local_server()), workspace=tmp_path) as manager:
        pid = manager.connections[0].pid
        assert pid is not None
        await until(
            lambda: any("MCP server starting" in r.getMessage() for r in caplog.records),
            "the server's stderr line in the log",
        )
    [record] = [r for r in caplog.records if "MCP server starting" in r.getMessage()]
    assert record.getMessage() == f"[mcp local] agentls-test MCP server starting (pid {pid})"


async def test_nothing_survives_the_server(tmp_path: Path) -> None:
    """The server starts a child that ignores stdin; closing leaves neither running."""
    pids_file = tmp_path / "pids"
    server = local_server("local", "--orphan", str(pids_file))
    async with MCPManager(mcp_config(server), workspace=tmp_path) as manager:
        assert manager.remotes
        leader, child = (int(p) for p in pids_file.read_text().split())
        assert manager.connections[0].pid == leader
        assert alive(leader) and alive(child)
    await until(lambda: not alive(leader) and not alive(child), "the server and its child to end")


async def test_a_crashed_server_restarts_and_the_model_is_told(
    tmp_path: Path, scripted: ScriptedModelServer, adapter_for: Any
) -> None:
    llm, model = adapter_for()
    scripted.add(
        model,
        tool_call("mcp_local_crash", {}),
        tool_call("mcp_local_add", {"a": 2, "b": 3}),
        text("done"),
    )
    config = mcp_config(local_server())
    async with MCPManager(config, workspace=tmp_path) as manager:
        registry = build_registry()
        manager.register(registry)
        connection = manager.connections[0]
        first_pid = connection.pid
        outcome = await run_agent(
            RunRequest(prompt="crash it, then add", confirm_mode="yolo", stream=False),
            FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("nobody"), registry=registry),
            config=AppConfig(mcp=config),
            llm=llm,
        )
        assert outcome.state.status == "success", outcome.state.final_output
        [told] = tool_messages(scripted, model, 1)
        assert "'crash'" in told and "'local'" in told
        assert "the server process stopped" in told and "crashing on purpose" in told
        assert tool_messages(scripted, model, 2)[-1] == "5"
        assert connection.pid not in (None, first_pid)

        # Killed from outside between calls: the next call starts it again and works.
        killed = connection.pid
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        await until(lambda: not connection.connected, "the connection to notice the kill")
        add = registry.get("mcp_local_add")
        result = await add.run(add.args_model.model_validate({"a": 20, "b": 22}), None)  # type: ignore[arg-type]
        assert result.success and result.output == "42"
        assert connection.pid not in (None, killed)


async def test_start_failures_name_the_entry_and_spare_the_others(tmp_path: Path) -> None:
    failing = MCPServerConfig(
        name="failing",
        command=sys.executable,
        args=["-c", "import sys; print('unknown option --frob', file=sys.stderr); sys.exit(2)"],
    )
    config = mcp_config(
        MCPServerConfig(name="missing", command="agentls-no-such-mcp-server"),
        MCPServerConfig(name="nowhere", command=sys.executable, cwd="does/not/exist"),
        MCPServerConfig(name="unset", command="${env:AGENTLS_TEST_UNSET_VARIABLE}"),
        failing,
        local_server(),
    )
    async with MCPManager(config, workspace=tmp_path) as manager:
        assert {r.server for r in manager.remotes} == {"local"}
        warnings = "\n".join(manager.warnings)
    assert len(manager.warnings) == 4, warnings
    assert "'missing': command 'agentls-no-such-mcp-server' not found on PATH" in warnings
    assert "'nowhere': its working directory" in warnings and "does not exist" in warnings
    assert "AGENTLS_TEST_UNSET_VARIABLE" in warnings and "is not set" in warnings
    assert "'failing'" in warnings and "exited before answering" in warnings
    assert "unknown option --frob" in warnings


# --- SSE, for older servers ----------------------------------------------------------


@pytest.fixture
def sse_port() -> Iterator[int]:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT), "--sse", "--token", "sse-token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield int(proc.stdout.readline().split()[1])
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


async def test_sse_transport(sse_port: int) -> None:
    server = MCPServerConfig(
        name="old",
        type="sse",
        url=f"http://127.0.0.1:{sse_port}/sse",
        headers={"Authorization": "Bearer sse-token"},
    )
    async with MCPManager(mcp_config(server)) as manager:
        assert manager.warnings == []
        [add] = [r for r in manager.remotes if r.name == "mcp_old_add"]
        result = await add.call({"a": 3, "b": 4})
    assert result.success and result.output == "7"


# --- a third-party server from PyPI --------------------------------------------------


async def test_third_party_time_server(third_party_bin: Path, tmp_path: Path) -> None:
    server = MCPServerConfig(
        name="time", command=str(third_party_bin / "mcp-server-time"), args=["--local-timezone=UTC"]
    )
    async with MCPManager(mcp_config(server), workspace=tmp_path) as manager:
        assert manager.warnings == []
        by_name = {r.name: r for r in manager.remotes}
        assert {"mcp_time_get_current_time", "mcp_time_convert_time"} <= set(by_name)
        result = await by_name["mcp_time_convert_time"].call(
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
        )
        assert result.success and "T21:00:00+09:00" in result.output, result.output
        # The server's own error (an unknown zone) reaches the model as a tool error.
        bad = await by_name["mcp_time_get_current_time"].call({"timezone": "Mars/Olympus"})
        assert not bad.success and "'get_current_time'" in bad.output and "'time'" in bad.output


def write_workspace_files(workspace: Path, bin_dir: Path, pids_file: Path) -> None:
    (workspace / ".vscode").mkdir()
    # VS Code's shape, with comments and a trailing comma, as VS Code writes it.
    (workspace / ".vscode" / "mcp.json").write_text(
        """{
  // the time server, from PyPI
  "servers": {
    "time": {
      "type": "stdio",
      "command": "%s",
      "args": ["--local-timezone=UTC"],
    },
    "github": {
      "type": "http",
      "url": "https://api.example.invalid/mcp/",
      "headers": {"Authorization": "Bearer ${input:github_token}"}
    }
  },
  "inputs": [{"type": "promptString", "id": "github_token", "password": true}]
}
"""
        % (bin_dir / "mcp-server-time")
    )
    (workspace / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "local": {
                        "command": sys.executable,
                        "args": [str(SERVER_SCRIPT), "--stdio", "--orphan", str(pids_file)],
                    }
                }
            }
        )
    )


def test_cli_run_uses_the_workspace_mcp_files_and_leaves_nothing_behind(
    third_party_bin: Path,
    scripted: ScriptedModelServer,
    tmp_path: Path,
    trust_folder: Callable[..., None],
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    pids_file = tmp_path / "pids"
    write_workspace_files(workspace, third_party_bin, pids_file)
    (workspace / ".agentls.yaml").write_text("indexer:\n  enabled: false\n")
    trust_folder(workspace)
    scripted.add(
        "mcpstdiocli",
        tool_call(
            "mcp_time_convert_time",
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
        ),
        tool_call("mcp_local_add", {"a": 2, "b": 3}),
        text("noon in UTC is nine in Tokyo"),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentls.cli",
            "run",
            "what time is it in Tokyo at noon UTC?",
            "--mode",
            "yolo",
            "--json",
            "--workspace",
            str(workspace),
            "--model",
            "openai/mcpstdiocli",
            "--api-base",
            scripted.api_base,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == "noon in UTC is nine in Tokyo"
    first = scripted.requests_for("mcpstdiocli")[0].body
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"mcp_time_convert_time", "mcp_local_add"} <= offered
    assert not any(name.startswith("mcp_github") for name in offered)
    [converted] = tool_messages(scripted, "mcpstdiocli", 1)
    assert "T21:00:00+09:00" in converted
    assert tool_messages(scripted, "mcpstdiocli", 2)[-1] == "5"
    # The entry needing a VS Code prompt is skipped, once, with a message saying why.
    assert done.stderr.count("'github'") == 1
    assert "${input:github_token}" in done.stderr and "${env:VAR}" in done.stderr
    leader, child = (int(p) for p in pids_file.read_text().split())
    assert not alive(leader) and not alive(child)


async def test_agentls_yaml_wins_and_each_source_turns_off(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    write_workspace_files(tmp_path, Path("/nonexistent"), pids_file)
    pool = MCPPool()
    warnings: list[str] = []
    allow = ProgramAnswers(then=True)  # the user allows each one

    try:
        # .agentls.yaml's "time" shadows the VS Code one (whose command does not exist).
        config = AppConfig(mcp=mcp_config(local_server("time")))
        config.workspace.root = tmp_path
        registry = await pool.registry_for(config, warn=warnings.append, approver=allow)
        assert registry is not None
        assert registry.has_tool("mcp_time_add") and registry.has_tool("mcp_local_add")
        assert [w for w in warnings if "'github'" in w and "skipped" in w]
        assert not [w for w in warnings if "not found" in w]

        off = AppConfig(mcp=mcp_config(vscode_config=False, mcp_json=False))
        off.workspace.root = tmp_path
        assert await pool.registry_for(off, warn=warnings.append, approver=allow) is None
        only_mcp_json = AppConfig(mcp=mcp_config(vscode_config=False))
        only_mcp_json.workspace.root = tmp_path
        registry = await pool.registry_for(only_mcp_json, warn=warnings.append, approver=allow)
        assert registry is not None
        assert registry.has_tool("mcp_local_add") and not registry.has_tool("mcp_time_add")
    finally:
        await pool.aclose()
    leader, child = (int(p) for p in pids_file.read_text().split())
    await until(
        lambda: not alive(leader) and not alive(child),
        lambda: f"the pool's servers to end (alive: {survivors(leader, child)})",
    )


@pytest.fixture(autouse=True)
def no_server_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test here must leave no MCP server process registered as running."""
    from agentls.agent.mcp import stdio

    yield
    assert stdio._live_groups == {}, f"{request.node.name} left MCP servers running"
