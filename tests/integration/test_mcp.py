"""MCP tools against a real MCP server (tests/fixtures/mcp_server.py) on 127.0.0.1.

The server is the SDK's own MCPServer in a subprocess that checks a Bearer token; the
model is the scripted model server. Nothing is mocked.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import yaml

from agentls.agent.config.models import (
    AgentConfig,
    AppConfig,
    LLMConfig,
    MCPConfig,
    MCPServerConfig,
)
from agentls.agent.llm import LiteLLMAdapter, RetryPolicy
from agentls.agent.llm.models import ToolCall
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.mcp import VALID_NAME, MCPManager, dedupe, prefixed_name, render_result
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.tools.registry import ToolRegistry
from agentls.agent.workspace import DiskFileAccess

ROOT = Path(__file__).resolve().parents[2]
SERVER_SCRIPT = ROOT / "tests" / "fixtures" / "mcp_server.py"
TOKEN = "test-token-" + uuid.uuid4().hex[:8]
TOKEN_ENV = "AGENTLS_TEST_MCP_TOKEN"


@dataclass
class McpServer:
    port: int
    proc: subprocess.Popen[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def start_server(port: int = 0, extra_tools: int = 0) -> McpServer:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(SERVER_SCRIPT),
            "--port",
            str(port),
            "--token",
            TOKEN,
            "--extra-tools",
            str(extra_tools),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("LISTENING"):
        proc.kill()
        proc.wait(timeout=10)
        proc.stdout.close()
        raise RuntimeError(f"MCP test server did not start: {line!r}")
    return McpServer(int(line.split()[1]), proc)


@pytest.fixture(scope="module")
def server() -> Iterator[McpServer]:
    running = start_server()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def token_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, TOKEN)


def mcp_config(url: str, **overrides: Any) -> MCPConfig:
    server_keys = {"trusted", "token", "token_env", "name"}
    server_fields: dict[str, Any] = {"name": "test", "url": url, "token_env": TOKEN_ENV}
    server_fields.update({k: v for k, v in overrides.items() if k in server_keys})
    rest = {k: v for k, v in overrides.items() if k not in server_keys}
    rest.setdefault("connect_timeout", 5)
    rest.setdefault("call_timeout", 5)
    return MCPConfig(servers=[MCPServerConfig(**server_fields)], **rest)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- names and rendering (no server) ---------------------------------------------


def test_names_are_sanitized_bounded_and_deduped() -> None:
    assert prefixed_name("test", "add") == "mcp_test_add"
    assert prefixed_name("my server", "get.weather/now") == "mcp_my_server_get_weather_now"
    long_a = prefixed_name("s", "x" * 80 + "a")
    long_b = prefixed_name("s", "x" * 80 + "b")
    assert long_a != long_b and VALID_NAME.match(long_a) and len(long_a) == 64
    assert dedupe("mcp_s_t", {"mcp_s_t"}) == "mcp_s_t_2"
    assert dedupe("mcp_s_t", {"mcp_s_t", "mcp_s_t_2"}) == "mcp_s_t_3"


def test_images_are_summarised_and_output_is_bounded() -> None:
    data = base64.b64encode(b"\x00" * 12_600).decode()
    result = types.CallToolResult(
        content=[
            types.TextContent(text="chart:"),
            types.ImageContent(data=data, mime_type="image/png"),
            types.TextContent(text="y" * 50_000),
        ]
    )
    rendered = render_result(result, limit=1000)
    assert "[image: image/png, 12.3 KB]" in rendered
    assert data[:40] not in rendered
    assert len(rendered) < 1100 and "more characters not shown" in rendered


# --- against the real server --------------------------------------------------------


async def test_tools_are_registered_with_prefixed_names_and_schemas(server: McpServer) -> None:
    async with MCPManager(mcp_config(server.url)) as manager:
        registry = ToolRegistry()
        names = manager.register(registry)
        assert manager.warnings == []
    assert {"mcp_test_add", "mcp_test_picture", "mcp_test_fail"} <= set(names)
    assert all(VALID_NAME.match(name) for name in names)
    schema = registry.get("mcp_test_add").schema()["function"]
    assert schema["parameters"]["properties"].keys() == {"a", "b"}
    assert schema["parameters"]["required"] == ["a", "b"]
    assert "server 'test'" in schema["description"]
    assert registry.get("mcp_test_add").sensitive


def adapter(scripted: ScriptedModelServer, name: str) -> LiteLLMAdapter:
    config = LLMConfig(model=f"openai/{name}", api_base=scripted.api_base, timeout=10, retries=0)
    return LiteLLMAdapter(config, retry_policy=RetryPolicy(base_delay=0.001, max_delay=0.01))


async def run_with_mcp(
    scripted: ScriptedModelServer,
    tmp_path: Path,
    mcp: MCPConfig,
    model: str,
    confirm_mode: str = "yolo",
) -> tuple[Any, list[str]]:
    config = AppConfig(mcp=mcp)
    async with MCPManager(mcp) as manager:
        registry = build_registry()
        manager.register(registry)
        outcome = await run_agent(
            RunRequest(prompt="use the tools", confirm_mode=confirm_mode, stream=False),  # type: ignore[arg-type]
            FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("nobody to ask"), registry=registry),
            config=config,
            llm=adapter(scripted, model),
        )
        return outcome, list(manager.warnings)


def tool_messages(scripted: ScriptedModelServer, model: str, request: int) -> list[str]:
    messages = scripted.requests_for(model)[request].messages
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


async def test_full_run_calls_the_remote_tool(
    server: McpServer, scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    scripted.add("mcpadd", tool_call("mcp_test_add", {"a": 2, "b": 3}), text("it is 5"))
    outcome, warnings = await run_with_mcp(scripted, tmp_path, mcp_config(server.url), "mcpadd")
    assert warnings == []
    assert outcome.state.status == "success", outcome.state.final_output
    first = scripted.requests_for("mcpadd")[0].body
    assert "mcp_test_add" in {t["function"]["name"] for t in first["tools"]}
    assert tool_messages(scripted, "mcpadd", 1) == ["5"]


async def test_wrong_token_is_reported_once_and_its_tools_are_absent(server: McpServer) -> None:
    config = mcp_config(server.url, name="locked", token_env=None, token="wrong-token")
    async with MCPManager(config) as manager:
        registry = ToolRegistry()
        assert manager.register(registry) == []
    assert len(manager.warnings) == 1
    assert "'locked'" in manager.warnings[0] and "401" in manager.warnings[0]
    assert "wrong-token" not in manager.warnings[0]


async def test_missing_token_env_is_a_clear_error(
    server: McpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TOKEN_ENV)
    async with MCPManager(mcp_config(server.url)) as manager:
        assert manager.remotes == []
    assert len(manager.warnings) == 1 and TOKEN_ENV in manager.warnings[0]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections (the kernel completes them) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


async def test_dead_and_silent_servers_are_given_up_on_and_reported_once_each(
    server: McpServer, silent_port: int
) -> None:
    config = MCPConfig(
        servers=[
            MCPServerConfig(name="dead", url=f"http://127.0.0.1:{free_port()}/mcp"),
            MCPServerConfig(name="silent", url=f"http://127.0.0.1:{silent_port}/mcp"),
            MCPServerConfig(name="test", url=server.url, token_env=TOKEN_ENV),
        ],
        connect_timeout=3,
    )
    async with MCPManager(config) as manager:
        registry = ToolRegistry()
        names = manager.register(registry)
        [dead] = [w for w in manager.warnings if "'dead'" in w]
        [silent] = [w for w in manager.warnings if "'silent'" in w]
        assert len(manager.warnings) == 2
        assert "not reachable" in dead and "not available" in dead
        # The wait for the answer ended at the timeout rather than with the socket.
        assert "did not answer within 3s" in silent and "not available" in silent
        assert {r.server for r in manager.remotes} == {"test"}
        assert "mcp_test_add" in names
        assert not [n for n in names if "dead" in n or "silent" in n]
        add = registry.get("mcp_test_add")
        result = await add.run(add.args_model.model_validate({"a": 2, "b": 2}), None)  # type: ignore[arg-type]
        assert result.success and result.output == "4"


async def test_tool_errors_and_bad_arguments_become_tool_results(server: McpServer) -> None:
    async with MCPManager(mcp_config(server.url)) as manager:
        registry = ToolRegistry()
        manager.register(registry)
        fail = registry.get("mcp_test_fail")
        result = await fail.run(fail.args_model.model_validate({"message": "no luck"}), None)  # type: ignore[arg-type]
        assert not result.success
        assert "'fail'" in result.output and "'test'" in result.output
        assert "no luck" in result.output
        add = registry.get("mcp_test_add")
        bad = await add.run(add.args_model.model_validate({"a": "two"}), None)  # type: ignore[arg-type]
        assert not bad.success and "'b' is a required property" in bad.output


async def test_call_timeout_is_a_tool_error(server: McpServer) -> None:
    async with MCPManager(mcp_config(server.url, call_timeout=0.5)) as manager:
        registry = ToolRegistry()
        manager.register(registry)
        slow = registry.get("mcp_test_slow")
        result = await slow.run(slow.args_model.model_validate({"seconds": 3}), None)  # type: ignore[arg-type]
        assert not result.success and "did not answer within 0.5s" in result.output


async def test_image_content_is_summarised(server: McpServer) -> None:
    async with MCPManager(mcp_config(server.url)) as manager:
        registry = ToolRegistry()
        manager.register(registry)
        picture = registry.get("mcp_test_picture")
        result = await picture.run(picture.args_model.model_validate({}), None)  # type: ignore[arg-type]
    assert result.success
    assert "a red square" in result.output
    assert "[image: image/png," in result.output and "iVBOR" not in result.output


async def test_killed_server_is_a_tool_error_then_reconnects_after_restart(
    scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    own = start_server()
    config = mcp_config(own.url)
    try:
        async with MCPManager(config) as manager:
            registry = build_registry()
            manager.register(registry)
            own.stop()
            scripted.add(
                "mcpdrop",
                tool_call("mcp_test_add", {"a": 1, "b": 1}),
                text("server is down"),
            )
            outcome = await run_agent(
                RunRequest(prompt="add", confirm_mode="yolo", stream=False),
                FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("nobody"), registry=registry),
                config=AppConfig(mcp=config),
                llm=adapter(scripted, "mcpdrop"),
            )
            assert outcome.state.status == "success"
            [told] = tool_messages(scripted, "mcpdrop", 1)
            assert "'test'" in told and "'add'" in told

            own = start_server(own.port)
            add = registry.get("mcp_test_add")
            result = await add.run(add.args_model.model_validate({"a": 20, "b": 22}), None)  # type: ignore[arg-type]
            assert result.success and result.output == "42"
    finally:
        own.stop()


async def test_beyond_the_cap_the_model_discovers_tools(server: McpServer) -> None:
    async with MCPManager(mcp_config(server.url, max_tool_schemas=3)) as manager:
        registry = ToolRegistry()
        names = manager.register(registry)
        assert names == ["list_mcp_tools", "describe_mcp_tool", "call_mcp_tool"]
        listed = await registry.get("list_mcp_tools").run(
            registry.get("list_mcp_tools").args_model.model_validate({}),
            None,  # type: ignore[arg-type]
        )
        assert "mcp_test_add [test]" in listed.output
        described = await registry.get("describe_mcp_tool").run(
            registry.get("describe_mcp_tool").args_model.model_validate({"name": "mcp_test_add"}),
            None,  # type: ignore[arg-type]
        )
        assert '"required"' in described.output
        call = registry.get("call_mcp_tool")
        result = await call.run(
            call.args_model.model_validate({"name": "mcp_test_add", "arguments": {"a": 4, "b": 5}}),
            None,  # type: ignore[arg-type]
        )
        assert result.success and result.output == "9"


@pytest.mark.parametrize("trusted", [False, True])
async def test_untrusted_tools_need_approval_trusted_ones_do_not(
    server: McpServer, tmp_path: Path, trusted: bool
) -> None:
    mcp = mcp_config(server.url, trusted=trusted)
    async with MCPManager(mcp) as manager:
        registry = ToolRegistry()
        manager.register(registry)
        engine = ExecutionEngine(registry, RunContext(DiskFileAccess(tmp_path), AppConfig(mcp=mcp)))
        agent = AgentConfig(system_prompt="x", confirm_mode="confirm-sensitive")
        done = await engine.execute_tool_call(
            ToolCall(id="c1", name="mcp_test_add", arguments={"a": 1, "b": 2}), agent
        )
    if trusted:
        assert done.result.success and done.result.output == "3"
    else:
        assert not done.result.success and "denied" in done.result.output


def test_cli_run_loads_mcp_tools(
    server: McpServer, scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    scripted.add("mcpcli", tool_call("mcp_test_add", {"a": 2, "b": 3}), text("five"))
    config_file = tmp_path / "agentls.yaml"
    config_file.write_text(
        yaml.safe_dump(
            {
                "mcp": {
                    "servers": [
                        {"name": "test", "url": server.url, "token_env": TOKEN_ENV},
                        {"name": "gone", "url": f"http://127.0.0.1:{free_port()}/mcp"},
                    ],
                    "connect_timeout": 5,
                },
                "indexer": {"enabled": False},
            }
        )
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentls.cli",
            "run",
            "add two and three",
            "--mode",
            "yolo",
            "--json",
            "--config",
            str(config_file),
            "--workspace",
            str(tmp_path),
            "--model",
            "openai/mcpcli",
            "--api-base",
            scripted.api_base,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == "five"
    assert tool_messages(scripted, "mcpcli", 1) == ["5"]
    assert done.stderr.count("'gone'") == 1 and TOKEN not in done.stderr


async def test_server_pool_reports_once_and_reuses_connections(server: McpServer) -> None:
    from agentls.agent.mcp import MCPPool

    warnings: list[str] = []
    servers = [
        MCPServerConfig(name="test", url=server.url, token_env=TOKEN_ENV),
        MCPServerConfig(name="gone", url=f"http://127.0.0.1:{free_port()}/mcp"),
    ]
    for own in servers:  # declared in the user's own config: no approval needed
        own.set_source("user", "config.yaml")
    config = AppConfig(mcp=MCPConfig(servers=servers, connect_timeout=3))
    pool = MCPPool()
    try:
        first = await pool.registry_for(config, warn=warnings.append)
        second = await pool.registry_for(config, warn=warnings.append)
        assert first is not None and second is not None and first is not second
        assert first.has_tool("mcp_test_add") and first.has_tool("read_file")
        assert len(warnings) == 1 and "'gone'" in warnings[0]
        assert await pool.registry_for(AppConfig(), warn=warnings.append) is None
    finally:
        await pool.aclose()
