"""MCP server entries: their validation, the workspace's MCP files, variable substitution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentls.agent.config.loader import load_config
from agentls.agent.config.models import AppConfig, MCPConfig, MCPServerConfig
from agentls.agent.errors import ConfigError, MCPConnectionError
from agentls.agent.mcp.expand import expand, read_env_file
from agentls.agent.mcp.sources import strip_jsonc, workspace_servers


def load_yaml(tmp_path: Path, text: str) -> AppConfig:
    (tmp_path / ".agentls.yaml").write_text(text)
    return load_config(tmp_path, trusted=True)


def test_stdio_and_http_entries_are_told_apart() -> None:
    stdio = MCPServerConfig(name="time", command="uvx", args=["mcp-server-time"])
    http = MCPServerConfig(name="docs", url="http://127.0.0.1:8000/mcp")
    sse = MCPServerConfig(name="old", type="sse", url="http://127.0.0.1:8000/sse")
    assert (stdio.transport, http.transport, sse.transport) == ("stdio", "http", "sse")
    assert stdio.where == "uvx mcp-server-time" and http.where == "http://127.0.0.1:8000/mcp"


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("{name: time, comand: uvx}", "mcp.servers.0 (time).comand: extra field not permitted"),
        ("{name: time}", "server 'time' needs `command` (a local stdio server) or `url`"),
        ("{name: both, command: x, url: 'http://h/mcp'}", "server 'both' has both `command`"),
        ("{name: t, command: x, headers: {A: b}}", "server 't' (stdio): `headers` only apply to"),
        ("{name: u, url: 'http://h', cwd: sub}", "server 'u' (http): `cwd` only apply to stdio"),
        ("{name: s, type: sse, command: x}", "server 's': type sse needs `url`"),
    ],
)
def test_bad_entries_are_errors_naming_the_entry(tmp_path: Path, entry: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_yaml(tmp_path, f"mcp:\n  servers:\n    - {entry}\n")
    assert expected in str(caught.value)
    assert ".agentls.yaml" in str(caught.value)


def test_redacted_masks_env_and_header_values() -> None:
    config = AppConfig(
        mcp=MCPConfig(
            servers=[
                MCPServerConfig(name="a", command="x", env={"API_KEY": "k-123"}),
                MCPServerConfig(name="b", url="http://h/mcp", headers={"X-Key": "h-456"}),
            ]
        )
    )
    text = json.dumps(config.redacted())
    assert "k-123" not in text and "h-456" not in text
    assert '"API_KEY": "***"' in text and '"X-Key": "***"' in text


# --- variables ------------------------------------------------------------------------


def test_expand_substitutes_workspace_and_environment(tmp_path: Path) -> None:
    environ = {"TOKEN": "t0k"}
    assert (
        expand(
            "${workspaceFolder}/db:${env:TOKEN}",
            server="s",
            where="args[0]",
            workspace=tmp_path,
            environ=environ,
        )
        == f"{tmp_path}/db:t0k"
    )
    assert (
        expand("${env:MISSING:-fallback}", server="s", where="x", workspace=tmp_path, environ={})
        == "fallback"
    )
    with pytest.raises(
        MCPConnectionError, match=r"'s': environment variable MISSING .* in env.KEY\) is not set"
    ):
        expand("${env:MISSING}", server="s", where="env.KEY", workspace=tmp_path, environ={})
    with pytest.raises(MCPConnectionError, match=r"uses \$\{input:tok\}, which only VS Code"):
        expand("${input:tok}", server="s", where="headers.A", workspace=tmp_path, environ={})
    with pytest.raises(MCPConnectionError, match="unknown variable"):
        expand("${command:pick}", server="s", where="args[1]", workspace=tmp_path, environ={})


def test_env_files_are_read_and_bad_lines_named(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# comment\nexport A=1\nB='two words'\n\n")
    assert read_env_file(path, server="s") == {"A": "1", "B": "two words"}
    path.write_text("A=1\nnonsense\n")
    with pytest.raises(MCPConnectionError, match="line 2: expected KEY=VALUE"):
        read_env_file(path, server="s")


# --- the workspace's MCP files ----------------------------------------------------------


def test_strip_jsonc_keeps_strings_and_drops_comments_and_trailing_commas() -> None:
    text = '{\n  // c\n  "a": "http://x//y", /* b */\n  "l": [1, 2,],\n}'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x//y", "l": [1, 2]}


def workspace(tmp_path: Path, vscode: object, mcp_json: object, yaml: str = "") -> AppConfig:
    (tmp_path / ".vscode").mkdir(exist_ok=True)
    (tmp_path / ".vscode" / "mcp.json").write_text(
        vscode if isinstance(vscode, str) else json.dumps(vscode)
    )
    (tmp_path / ".mcp.json").write_text(json.dumps(mcp_json))
    return load_yaml(tmp_path, yaml or "{}\n")


def test_vscode_and_mcp_json_servers_are_read(tmp_path: Path) -> None:
    config = workspace(
        tmp_path,
        """{
          // VS Code writes comments
          "servers": {
            "fs": {"type": "stdio", "command": "npx", "args": ["-y", "fs", "${workspaceFolder}"],
                   "env": {"N": 1, "GONE": null}, "envFile": "${workspaceFolder}/.env"},
            "remote": {"type": "http", "url": "https://h/mcp", "headers": {"K": "${env:KEY}"}},
            "secret": {"type": "http", "url": "https://h/mcp",
                       "headers": {"Authorization": "Bearer ${input:token}"}},
          },
          "inputs": [{"id": "token", "type": "promptString"}]
        }""",
        {
            "mcpServers": {
                "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"T": "${TOKEN:-x}"}},
                "sse": {"type": "sse", "url": "${BASE}/sse", "autoApprove": ["x"]},
            }
        },
    )
    found = workspace_servers(config)
    by_name = {server.name: server for server in found.servers}
    assert list(by_name) == ["fs", "remote", "git", "sse"]
    assert by_name["fs"].args == ["-y", "fs", "${workspaceFolder}"]  # substituted at start
    assert by_name["fs"].env == {"N": "1"} and by_name["fs"].env_file == "${workspaceFolder}/.env"
    assert by_name["remote"].transport == "http" and by_name["remote"].headers == {
        "K": "${env:KEY}"
    }
    # .mcp.json's shell-style variables become agentls' ${env:...}.
    assert by_name["git"].env == {"T": "${env:TOKEN:-x}"}
    assert by_name["sse"].transport == "sse" and by_name["sse"].url == "${env:BASE}/sse"
    assert not any(server.trusted for server in found.servers)
    [skipped, unknown] = found.warnings
    assert "'secret' in .vscode/mcp.json: skipped" in skipped and "${input:token}" in skipped
    assert "'sse' in .mcp.json: ignoring key(s) agentls does not know: autoApprove" in unknown


def test_agentls_yaml_wins_then_vscode_and_sources_turn_off(tmp_path: Path) -> None:
    vscode = {"servers": {"a": {"command": "from-vscode"}, "b": {"command": "from-vscode"}}}
    mcp_json = {"mcpServers": {"b": {"command": "from-mcp-json"}, "c": {"command": "x"}}}
    yaml = "mcp:\n  servers:\n    - {name: a, command: from-yaml}\n"
    config = workspace(tmp_path, vscode, mcp_json, yaml)
    commands = {s.name: s.command for s in workspace_servers(config).servers}
    assert commands == {"a": "from-yaml", "b": "from-vscode", "c": "x"}

    config = workspace(tmp_path, vscode, mcp_json, yaml + "  vscode_config: false\n")
    commands = {s.name: s.command for s in workspace_servers(config).servers}
    assert commands == {"a": "from-yaml", "b": "from-mcp-json", "c": "x"}

    config = workspace(
        tmp_path, vscode, mcp_json, yaml + "  vscode_config: false\n  mcp_json: false\n"
    )
    assert [s.name for s in workspace_servers(config).servers] == ["a"]


def test_broken_files_and_entries_are_warnings_naming_them(tmp_path: Path) -> None:
    config = workspace(
        tmp_path,
        '{"servers": {"x": {"command": "a",}',
        {"mcpServers": {"both": {"command": "a", "url": "http://h"}, "list": ["a"]}},
    )
    found = workspace_servers(config)
    assert found.servers == []
    [broken, both, shape] = found.warnings
    assert broken.startswith("MCP: .vscode/mcp.json is not valid JSON (line 1")
    assert "'both' in .mcp.json: skipped" in both and "has both `command`" in both
    assert "'list' in .mcp.json: skipped: an entry must be an object" in shape


async def test_pool_says_once_why_every_entry_was_skipped(tmp_path: Path) -> None:
    from agentls.agent.mcp import MCPPool

    vscode = {"servers": {"gh": {"type": "http", "url": "https://h/mcp?t=${input:token}"}}}
    config = workspace(tmp_path, vscode, {"mcpServers": {}})
    pool = MCPPool()
    warnings: list[str] = []
    assert await pool.registry_for(config, warn=warnings.append) is None
    assert await pool.registry_for(config, warn=warnings.append) is None
    [warning] = warnings
    assert "'gh' in .vscode/mcp.json: skipped" in warning
    await pool.aclose()
