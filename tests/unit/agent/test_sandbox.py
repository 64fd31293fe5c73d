"""bubblewrap confinement of execute_command / python_executor, with real bwrap.

The tests install bubblewrap through scripts/ensure_bwrap.sh when it is missing (the
``bwrap`` fixture of conftest.py); set AGENTLS_SKIP_SANDBOX_TESTS=1 to skip the ones that
need it. test_planted_files.py covers the protected paths of the workspace.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from live_processes import processes_with, sleep_marker

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.exec import sandbox as sandbox_module
from agentls.agent.exec.sandbox import NO_BWRAP_NOTE, Sandbox, make_sandbox
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.exec import (
    ExecuteCommandArgs,
    ExecuteCommandTool,
    PythonExecutorArgs,
    PythonExecutorTool,
)
from agentls.agent.workspace import DiskFileAccess


@pytest.fixture
def outside() -> Iterator[Path]:
    # Not under /tmp: the sandbox gives the command its own empty /tmp.
    path = Path("/var/tmp") / f"agentls-sandbox-{uuid.uuid4().hex}"
    yield path
    path.unlink(missing_ok=True)


def _exists(path: Path) -> bool:
    return path.exists()


def _ctx(root: Path, run_id: str = "run-1", **agent: Any) -> ToolContext:
    config = AgentConfig.model_validate({"system_prompt": "x", **agent})
    run = RunContext(files=DiskFileAccess(root), config=AppConfig(), run_id=run_id)
    return ToolContext(run, agent=config)


async def run_cmd(root: Path, command: str, **agent: Any) -> ToolResult:
    return await ExecuteCommandTool().run(ExecuteCommandArgs(command=command), _ctx(root, **agent))


def test_wrap_binds_the_workspace_and_cuts_the_network(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, "workspace-write", network=False, bwrap="/usr/bin/bwrap")
    argv = box.wrap(["sh", "-c", "true"], tmp_path)
    ws = str(tmp_path)
    assert argv[:5] == ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev"]
    assert argv[argv.index("--bind") + 1 : argv.index("--bind") + 3] == [ws, ws]
    # The workspace is bound after the private /tmp, or a workspace in /tmp would vanish.
    assert argv.index("--tmpfs") < argv.index("--bind")
    assert "--unshare-net" in argv and "--die-with-parent" in argv
    assert argv[-4:] == ["--", "sh", "-c", "true"]
    read_only = Sandbox(tmp_path, "read-only", bwrap="/usr/bin/bwrap").wrap(["x"], tmp_path)
    assert "--bind" not in read_only
    last_ro = len(read_only) - 1 - read_only[::-1].index("--ro-bind")
    assert read_only[last_ro : last_ro + 3] == ["--ro-bind", ws, ws]
    online = Sandbox(tmp_path, network=True, bwrap="/usr/bin/bwrap").wrap(["x"], tmp_path)
    assert "--unshare-net" not in online
    assert Sandbox(tmp_path, "off", bwrap="/usr/bin/bwrap").wrap(["x"], tmp_path) == ["x"]


def test_programs_under_tmp_stay_visible(tmp_path: Path) -> None:
    """A checkout (and its .venv) under /tmp must not vanish under the private /tmp."""
    tool_dir = tmp_path / "checkout" / ".venv" / "bin"
    tool_dir.mkdir(parents=True)
    (tool_dir / "python").write_text("")
    ws = tmp_path / "ws"
    ws.mkdir()
    argv = Sandbox(ws, bwrap="/usr/bin/bwrap").wrap([str(tool_dir / "python"), "-"], ws)
    real = os.path.realpath(tool_dir)
    at = argv.index(real)
    assert argv[at - 1 : at + 2] == ["--ro-bind", real, real]
    assert argv.index("--tmpfs") < at  # bound back after /tmp is replaced


async def test_writes_inside_the_workspace_are_allowed(bwrap: str, tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, "echo hi > inside.txt && cat inside.txt")
    assert result.success, result.output
    assert (tmp_path / "inside.txt").read_text() == "hi\n"
    assert "Files changed: inside.txt" in result.output


async def test_writes_outside_are_refused_with_a_note(
    bwrap: str, tmp_path: Path, outside: Path
) -> None:
    result = await run_cmd(tmp_path, f"echo x > {outside}")
    assert not result.success
    assert "Read-only file system" in result.output
    assert "Note: the sandbox makes the filesystem outside the workspace read-only" in (
        result.output
    )
    assert not _exists(outside)


async def test_tmp_is_private_and_writable(bwrap: str, tmp_path: Path) -> None:
    name = f"agentls-{uuid.uuid4().hex}"
    result = await run_cmd(tmp_path, f"echo x > /tmp/{name} && cat /tmp/{name}")
    assert result.success, result.output
    assert not (Path("/tmp") / name).exists()


async def test_read_only_mode_protects_the_workspace(bwrap: str, tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, "echo x > inside.txt", sandbox="read-only")
    assert not result.success
    assert "the workspace included" in result.output
    assert not (tmp_path / "inside.txt").exists()


async def test_network_is_refused(bwrap: str, tmp_path: Path) -> None:
    code = "import socket\nsocket.create_connection(('192.0.2.1', 80), timeout=5)\n"
    result = await PythonExecutorTool().run(PythonExecutorArgs(code=code), _ctx(tmp_path))
    assert not result.success
    assert "Network is unreachable" in result.output
    assert "Note: the sandbox disables network access" in result.output


async def test_timeout_kills_sandboxed_children(bwrap: str, tmp_path: Path) -> None:
    mark = sleep_marker(6)
    args = ExecuteCommandArgs(command=f"sleep {mark} & sleep {mark}; wait", timeout=1)
    result = await ExecuteCommandTool().run(args, _ctx(tmp_path))
    assert not result.success and "Timed out" in result.output
    assert processes_with(mark) == []


async def test_without_bwrap_the_result_says_so_once_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_module, "find_bwrap", lambda: None)
    assert make_sandbox(tmp_path, "workspace-write", False).missing
    tool = ExecuteCommandTool()
    first = await tool.run(ExecuteCommandArgs(command="true"), _ctx(tmp_path))
    second = await tool.run(ExecuteCommandArgs(command="true"), _ctx(tmp_path))
    other_run = await tool.run(ExecuteCommandArgs(command="true"), _ctx(tmp_path, "run-2"))
    assert NO_BWRAP_NOTE in first.output
    assert NO_BWRAP_NOTE not in second.output
    assert NO_BWRAP_NOTE in other_run.output
    off = await tool.run(ExecuteCommandArgs(command="true"), _ctx(tmp_path, "r3", sandbox="off"))
    assert NO_BWRAP_NOTE not in off.output


# -- host sockets ---------------------------------------------------------------------------
CONNECT = (
    "import socket, sys\n"
    "s = socket.socket(socket.AF_UNIX)\n"
    "try:\n"
    "    s.connect(sys.argv[1])\n"
    "except OSError as exc:\n"
    "    print('REFUSED', exc)\n"
    "else:\n"
    "    print('CONNECTED')\n"
)


@pytest.fixture
def listening() -> Iterator[Callable[[Path], Path]]:
    """``listening(path)`` starts a real unix socket server at ``path`` in this process."""
    servers: list[tuple[socket.socket, Path]] = []

    def listen(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.listen(8)  # connections wait in the backlog: nothing needs to accept them
        servers.append((server, path))
        return path

    yield listen
    for server, path in servers:
        server.close()
        path.unlink(missing_ok=True)


@pytest.fixture
def outside_dir() -> Iterator[Path]:
    """A directory neither under /tmp (private in the sandbox) nor under /run."""
    path = Path("/var/tmp") / f"agentls-sock-{uuid.uuid4().hex[:12]}"
    path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def connects(root: Path, socket_path: Path, *, network: bool) -> bool:
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(CONNECT)} {socket_path}"
    result = await run_cmd(root, command, network=network)
    assert result.success, result.output
    assert "CONNECTED" in result.output or "REFUSED" in result.output, result.output
    return "CONNECTED" in result.output


async def test_a_host_socket_under_run_is_reachable_only_with_network(
    bwrap: str, tmp_path: Path, listening: Callable[[Path], Path]
) -> None:
    if not os.access("/run", os.W_OK):
        pytest.skip("cannot create a socket under /run as this user")
    path = listening(Path("/run") / f"agentls-test-{os.getpid()}-{uuid.uuid4().hex[:6]}.sock")
    assert not await connects(tmp_path, path, network=False)
    assert await connects(tmp_path, path, network=True)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SSH_AUTH_SOCK", "{path}"),
        ("DOCKER_HOST", "unix://{path}"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path={path},guid=0123456789abcdef"),
    ],
)
async def test_a_socket_the_environment_names_is_reachable_only_with_network(
    bwrap: str,
    tmp_path: Path,
    listening: Callable[[Path], Path],
    outside_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
) -> None:
    path = listening(outside_dir / "agent.sock")
    monkeypatch.setenv(variable, value.format(path=path))
    assert not await connects(tmp_path, path, network=False)
    assert await connects(tmp_path, path, network=True)


async def test_gpg_agent_sockets_are_reachable_only_with_network(
    bwrap: str,
    tmp_path: Path,
    listening: Callable[[Path], Path],
    outside_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = listening(outside_dir / "S.gpg-agent")
    monkeypatch.setenv("GNUPGHOME", str(outside_dir))
    assert not await connects(tmp_path, path, network=False)
    assert await connects(tmp_path, path, network=True)


async def test_the_runtime_directory_is_hidden_without_network(
    bwrap: str,
    tmp_path: Path,
    listening: Callable[[Path], Path],
    outside_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = listening(outside_dir / "bus")
    (outside_dir / "keep.txt").write_text("x")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(outside_dir))
    assert not await connects(tmp_path, path, network=False)
    listed = await run_cmd(tmp_path, f"ls -A {outside_dir}")
    assert listed.success, listed.output
    assert "keep.txt" not in listed.output  # the whole directory is an empty tmpfs
    assert await connects(tmp_path, path, network=True)


async def test_root_in_the_sandbox_has_no_capabilities(bwrap: str, tmp_path: Path) -> None:
    """With CAP_SYS_ADMIN a command started by root could unmount the read-only binds."""
    result = await run_cmd(tmp_path, "grep CapEff /proc/self/status")
    assert result.success, result.output
    assert "CapEff:\t0000000000000000" in result.output
