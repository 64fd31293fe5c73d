"""Configuration models and the layered loader.

Every model forbids unknown keys, so a typo such as ``llm.timout`` is an error that
names the key path and where it came from, never a silently ignored setting.

Layers, lowest first: the defaults below < ``.agentls.yaml`` at the workspace root
(or a file given) < overrides passed in (the server's initializationOptions and
didChangeConfiguration, CLI flags).
"""

from __future__ import annotations

import copy
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator
from pydantic import ValidationError as PydanticValidationError
from typing_extensions import TypeAliasType

from agentls.agent.errors import ConfigError
from agentls.agent.secrets import MASK
from agentls.indexer.settings import DEFAULT_EXCLUDE_DIRS as INDEXER_EXCLUDE_DIRS

CONFIG_FILE_NAME = ".agentls.yaml"

# Value sets named once: the run contract, the CLI and the server reuse them, and the
# JSON Schemas (config and protocol) get one named definition for each. Values are
# plain strings (Literal aliases, not enums), so comparisons with strings stay valid.
ConfirmMode = TypeAliasType("ConfirmMode", Literal["yolo", "confirm-all", "confirm-sensitive"])
SelfEvalMode = TypeAliasType("SelfEvalMode", Literal["off", "basic", "full"])


def choices(alias: Any) -> tuple[str, ...]:
    """The values of a Literal alias such as ``ConfirmMode``, e.g. for argparse."""
    return tuple(get_args(alias.__value__))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class LLMConfig(_Strict):
    """How to reach the model, through litellm."""

    provider: Literal["litellm"] = Field(
        "litellm", description="Model access library; litellm is the only one supported."
    )
    mode: Literal["direct", "proxy"] = Field(
        "direct",
        description="`direct` calls the provider through litellm; `proxy` talks to a "
        "LiteLLM proxy at `api_base` (model names are the proxy's aliases).",
    )
    model: str = Field("gpt-4o", description="Any litellm model name, e.g. `openai/gpt-4o-mini`.")
    api_base: str | None = Field(
        None, description="Custom base URL (LiteLLM proxy, Ollama, a local server)."
    )
    api_key_env: str = Field(
        "LITELLM_API_KEY",
        description="Name of the environment variable that holds the API key "
        "(the key itself never goes in the config). Read at call time.",
    )
    timeout: int = Field(60, ge=1, description="Seconds allowed for one call to the model.")
    retries: int = Field(
        2,
        ge=0,
        le=10,
        description="Retries on transient errors (429, timeouts, 5xx) and on streams cut "
        "before their end.",
    )
    stream: bool = Field(True, description="Stream the model's text as it is written.")
    patch_format: Literal["auto", "unified", "v4a"] = Field(
        "auto",
        description="Which patch format apply_patch's description shows first (both are "
        "always accepted): `v4a` (OpenAI's `*** Begin Patch` format), `unified` (diff -u), "
        "or `auto`: V4A for the models trained on it (gpt-4.1, gpt-5*, o-series, codex), "
        "unified otherwise.",
    )


class AgentConfig(_Strict):
    """One agent: its prompt, its tools and how much it may do without asking."""

    system_prompt: str = Field(description="The first message of every run of this agent.")
    allowed_tools: list[str] = Field(
        default_factory=list, description="Tools this agent may use; empty means all of them."
    )
    allowed_commands: list[str] = Field(
        default_factory=list,
        description="Shell commands that run without asking under `confirm-sensitive`: glob "
        "patterns matched against every simple command the shell would run (`pytest*` = "
        "pytest with any arguments, `git status` = exactly that). Chains, pipes and "
        "substitutions are allowed only when every part matches; redirection to files, "
        "wrappers (`env`, `timeout`, `sudo`…), `eval` and `bash -c` always ask.",
    )
    sandbox: Literal["workspace-write", "read-only", "off"] = Field(
        "workspace-write",
        description="How execute_command and python_executor are confined with bubblewrap: "
        "`workspace-write` (only the workspace and a private /tmp are writable), "
        "`read-only` (nothing is writable but a private /tmp), `off`.",
    )
    network: bool = Field(
        False, description="Let sandboxed commands use the network (no effect when `sandbox: off`)."
    )
    command_timeout: int = Field(
        120,
        ge=1,
        description="Default seconds a command or Python run may take before it is killed.",
    )
    confirm_mode: ConfirmMode = Field(
        "confirm-sensitive",
        description="`yolo`: never ask; `confirm-sensitive`: ask before tools that write, "
        "delete or run things; `confirm-all`: ask before every tool.",
    )
    max_steps: int = Field(20, ge=1, description="Maximum iterations of the agent loop.")


class LoggingConfig(_Strict):
    """Where the server and the CLI write their logs (never to the LSP stream)."""

    level: Literal["debug", "info", "warn", "error"] = Field("info", description="Log level.")
    file: Path | None = Field(None, description="Optional JSONL log file.")
    verbose: int = Field(0, ge=0, description="0=warn, 1=info, 2=debug, 3+=everything.")


class WorkspaceConfig(_Strict):
    """The directory the agent works in; every file operation is confined to it."""

    root: Path = Field(Path("."), description="Workspace root, relative to the config file.")
    allow_delete: bool = Field(False, description="Allow the delete_file tool.")


MCPTransport = Literal["stdio", "http", "sse"]


class MCPServerConfig(_Strict):
    """One MCP server whose tools the agent may call: a local command (stdio) or a URL."""

    name: str = Field(
        min_length=1, description="Identifier; tools are registered as `mcp_{name}_{tool}`."
    )
    type: MCPTransport | None = Field(
        None,
        description="`stdio` (a `command`), `http` (streamable HTTP at `url`) or `sse` (the "
        "older HTTP+SSE transport at `url`). Inferred when omitted: `stdio` with a `command`, "
        "`http` with a `url`.",
    )
    command: str | None = Field(
        None,
        description="stdio: the program that runs the server (looked up on PATH), e.g. "
        "`uvx` or `npx`. `${workspaceFolder}` and `${env:VAR}` are substituted here and in "
        "`args`, `env`, `cwd`, `url` and `headers`.",
    )
    args: list[str] = Field(default_factory=list, description="stdio: the command's arguments.")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="stdio: extra environment variables. The server inherits only HOME, "
        "LOGNAME, PATH, SHELL, TERM and USER besides these.",
    )
    env_file: str | None = Field(
        None,
        description="stdio: a file of `KEY=VALUE` lines added to the environment (`env` wins).",
    )
    cwd: str | None = Field(
        None,
        description="stdio: the server's working directory, relative to the workspace root "
        "(default: the workspace root).",
    )
    url: str | None = Field(
        None, description="http/sse: the server's endpoint, e.g. `http://127.0.0.1:8000/mcp`."
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="http/sse: extra HTTP headers (values are masked in logs).",
    )
    token_env: str | None = Field(
        None, description="http/sse: environment variable holding the Bearer token."
    )
    token: SecretStr | None = Field(
        None, description="http/sse: inline Bearer token (discouraged: prefer `token_env`)."
    )
    trusted: bool = Field(
        False,
        description="Treat this server's tools as not sensitive (no confirmation under "
        "`confirm-sensitive`). By default every MCP tool asks.",
    )

    @model_validator(mode="after")
    def _one_transport(self) -> MCPServerConfig:
        if self.command is not None and self.url is not None:
            raise ValueError(
                f"server {self.name!r} has both `command` (stdio) and `url` (HTTP): give one"
            )
        if self.command is None and self.url is None:
            raise ValueError(
                f"server {self.name!r} needs `command` (a local stdio server) or `url` "
                "(a remote HTTP server)"
            )
        transport = self.transport
        if transport == "stdio" and self.url is not None:
            raise ValueError(f"server {self.name!r}: type stdio needs `command`, not `url`")
        if transport != "stdio" and self.command is not None:
            raise ValueError(f"server {self.name!r}: type {transport} needs `url`, not `command`")
        if transport == "stdio":
            given = [key for key in ("headers", "token_env", "token") if getattr(self, key)]
        else:
            given = [key for key in ("args", "env", "env_file", "cwd") if getattr(self, key)]
        if given:
            scope = "HTTP" if transport == "stdio" else "stdio"
            listed = ", ".join(f"`{key}`" for key in given)
            raise ValueError(
                f"server {self.name!r} ({transport}): {listed} only apply to {scope} servers"
            )
        if not self.command and self.command is not None:
            raise ValueError(f"server {self.name!r}: `command` is empty")
        return self

    @property
    def transport(self) -> MCPTransport:
        if self.type is not None:
            return self.type
        return "stdio" if self.command is not None else "http"

    @property
    def where(self) -> str:
        """How messages point at the server: its URL, or its command line."""
        if self.transport == "stdio":
            return shlex.join([self.command or "", *self.args])
        return self.url or ""


#: The workspace files other tools keep their MCP servers in, which agentls reads too.
VSCODE_MCP_FILE = Path(".vscode") / "mcp.json"
MCP_JSON_FILE = Path(".mcp.json")


class MCPConfig(_Strict):
    """MCP servers: their tools are added to the agent's."""

    servers: list[MCPServerConfig] = Field(
        default_factory=list,
        description="MCP servers to use. On a name clash with `.vscode/mcp.json` or "
        "`.mcp.json`, the entry here wins.",
    )
    vscode_config: bool = Field(
        True,
        description="Also use the servers of the workspace's `.vscode/mcp.json` (`servers`).",
    )
    mcp_json: bool = Field(
        True,
        description="Also use the servers of the workspace's `.mcp.json` (`mcpServers`, the "
        "Claude Code / Cursor shape).",
    )
    max_tool_schemas: int = Field(
        30,
        ge=0,
        description="Most MCP tool schemas sent to the model; beyond it the model gets "
        "`list_mcp_tools`, `describe_mcp_tool` and `call_mcp_tool` to find and call them.",
    )
    connect_timeout: float = Field(
        10.0,
        gt=0,
        description="Seconds allowed to start or connect to a server and list its tools; "
        "servers start in parallel, so a dead one delays the start by at most this.",
    )
    call_timeout: float = Field(60.0, gt=0, description="Seconds allowed for one MCP tool call.")


# The default excluded directories live with the indexer, which applies them on every walk.
DEFAULT_EXCLUDE_DIRS = INDEXER_EXCLUDE_DIRS


class IndexerConfig(_Strict):
    """The repository index that gives the model its map of the workspace."""

    enabled: bool = Field(True, description="Index the workspace and put its tree in the prompt.")
    max_file_size: int = Field(
        1_000_000, ge=1, description="Files larger than this many bytes are skipped."
    )
    exclude_dirs: list[str] = Field(
        default_factory=list,
        description="Directories to skip, beyond " + ", ".join(DEFAULT_EXCLUDE_DIRS) + ".",
    )
    exclude_patterns: list[str] = Field(
        default_factory=list, description="File globs to skip, beyond *.pyc, *.min.js, etc."
    )
    use_cache: bool = Field(True, description="Cache the index on disk (5-minute TTL).")
    hold_text: bool = Field(
        True,
        description="Keep the text of indexed files in memory (one copy, kept current by the "
        "watcher) so grep and search_code do not read the disk.",
    )
    max_text_bytes: int = Field(
        256_000_000,
        ge=0,
        description="Memory cap for held text, in bytes; beyond it further files are searched "
        "on disk.",
    )
    map_tokens: int = Field(
        1500,
        ge=0,
        description="Token budget of the repo map in the system prompt: the files and "
        "signatures that matter for the task, ranked by a reference graph and by what the "
        "prompt names, the open editors and recent edits. 0 leaves the map out.",
    )


class ContextConfig(_Strict):
    """The three levels that keep the conversation inside the model's window."""

    max_tool_result_tokens: int = Field(
        2000, ge=0, description="Level 1: truncate longer tool results (0 disables)."
    )
    summarize_after_steps: int = Field(
        0,
        ge=0,
        description="Level 2: also summarise old steps after this many (0: only the "
        "token high-water mark triggers it).",
    )
    keep_recent_steps: int = Field(
        4, ge=0, description="Level 2: recent steps kept whole when summarising by step count."
    )
    max_context_tokens: int = Field(
        80000, ge=0, description="Level 3: hard limit, oldest steps dropped (0 disables)."
    )
    compact_at: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="High-water mark, as a share of `max_context_tokens`: above it the older "
        "steps are summarised in one block (0 disables).",
    )
    compact_to: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description="Low-water mark, as a share of `max_context_tokens`: a compaction keeps "
        "the recent steps that fit under it, and level 3 drops down to it.",
    )
    parallel_tools: bool = Field(True, description="Run independent tool calls in parallel.")


class EvaluationConfig(_Strict):
    """The SelfEvaluator that checks the result after a successful run."""

    mode: SelfEvalMode = Field(
        "off", description="`basic`: one check; `full`: check and retry with corrections."
    )
    max_retries: int = Field(2, ge=1, le=5, description="Correction rounds in `full` mode.")
    confidence_threshold: float = Field(
        0.8, ge=0.0, le=1.0, description="Minimum confidence to accept the result."
    )


class SessionsConfig(_Strict):
    """Where conversations are kept, so a run can continue an earlier one."""

    dir: Path = Field(
        Path(".agentls/sessions"),
        description="Directory of the session files (one JSONL file per session), relative "
        "to the workspace root; never indexed.",
    )


class EditorConfig(_Strict):
    """What the editor integration says about the editor (set in initializationOptions)."""

    confirms_edits: bool = Field(
        False,
        description="The editor itself asks before applying every server edit (Emacs eglot "
        "with `eglot-confirm-server-initiated-edits`), so edits that need confirmation are "
        "sent plain and its answer is the user's.",
    )


class AppConfig(_Strict):
    """The root of `.agentls.yaml`."""

    llm: LLMConfig = Field(default_factory=LLMConfig, description="Model access.")
    agents: dict[str, AgentConfig] = Field(
        default_factory=dict, description="Custom agents, by name (override or add to defaults)."
    )
    logging: LoggingConfig = Field(default_factory=LoggingConfig, description="Logging.")
    workspace: WorkspaceConfig = Field(default_factory=WorkspaceConfig, description="Workspace.")
    mcp: MCPConfig = Field(default_factory=MCPConfig, description="MCP servers.")
    indexer: IndexerConfig = Field(default_factory=IndexerConfig, description="Repository index.")
    context: ContextConfig = Field(default_factory=ContextConfig, description="Context window.")
    evaluation: EvaluationConfig = Field(
        default_factory=EvaluationConfig, description="Self-evaluation."
    )
    sessions: SessionsConfig = Field(default_factory=SessionsConfig, description="Sessions.")
    editor: EditorConfig = Field(
        default_factory=EditorConfig, description="What the editor integration declares."
    )

    def redacted(self) -> dict[str, Any]:
        """The config as plain data, safe to log or show: inline secrets are masked."""
        data = self.model_dump(mode="json")
        for server in data.get("mcp", {}).get("servers", []):
            if server.get("token"):
                server["token"] = MASK
            # Values of env and headers are where API keys go; their names are not secret.
            for key in ("env", "headers"):
                server[key] = {name: MASK for name in server.get(key) or {}}
        return data


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``override`` into a copy of ``base``; nested mappings merge, the rest replaces."""
    merged: dict[str, Any] = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


_MESSAGES = {
    "extra_forbidden": "extra field not permitted",
    "missing": "field required",
}


def format_validation_error(
    error: PydanticValidationError, source: str, data: Mapping[str, Any] | None = None
) -> str:
    """One line per problem: ``llm.timout: extra field not permitted in .agentls.yaml``.

    With ``data`` (what was validated), an MCP server entry is named as well as numbered:
    ``mcp.servers.1 (time).comand: ...``, since lists are read by name, not position.
    """
    lines = []
    for item in error.errors():
        loc = list(item["loc"])
        path = ".".join(str(part) for part in loc) or "(root)"
        name = _server_name(data, loc)
        if name:
            head = ".".join(str(part) for part in loc[:3])
            path = f"{head} ({name})" + path[len(head) :]
        message = _MESSAGES.get(item["type"], item["msg"])
        message = message.removeprefix("Value error, ")
        lines.append(f"{path}: {message} in {source}")
    return "\n".join(lines)


def _server_name(data: Mapping[str, Any] | None, loc: list[Any]) -> str:
    if data is None or loc[:2] != ["mcp", "servers"] or len(loc) < 3:
        return ""
    mcp = data.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, Mapping) else None
    index = loc[2]
    if not isinstance(servers, list) or not isinstance(index, int) or index >= len(servers):
        return ""
    entry = servers[index]
    name = entry.get("name") if isinstance(entry, Mapping) else None
    return name if isinstance(name, str) else ""


def read_config_file(path: Path) -> dict[str, Any]:
    """Parse a YAML config file into a mapping; a YAML or shape error is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path.name}{where}: invalid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path.name}: the top level must be a mapping of keys")
    return data


def validate_config(data: Mapping[str, Any], source: str) -> AppConfig:
    """Validate plain data as an AppConfig, naming ``source`` in any error."""
    try:
        return AppConfig.model_validate(dict(data))
    except PydanticValidationError as exc:
        raise ConfigError(format_validation_error(exc, source, data)) from exc


def load_config(
    workspace: Path | str | None = None,
    config_file: Path | str | None = None,
    overrides: Mapping[str, Any] | None = None,
    overrides_source: str = "overrides",
) -> AppConfig:
    """Build the effective config: defaults < YAML file < ``overrides``.

    The YAML file is ``config_file`` when given, else ``.agentls.yaml`` in
    ``workspace`` if it exists. ``workspace.root`` is resolved against the file's
    directory; when a ``workspace`` argument is given it wins over the file.
    """
    base_dir = Path(workspace) if workspace is not None else Path.cwd()
    file_data: dict[str, Any] = {}
    source_name = CONFIG_FILE_NAME
    path: Path | None = Path(config_file) if config_file is not None else None
    if path is None and (base_dir / CONFIG_FILE_NAME).is_file():
        path = base_dir / CONFIG_FILE_NAME
    if path is not None:
        file_data = read_config_file(path)
        source_name = path.name
        validate_config(file_data, source_name)  # errors name the file, not the merge

    merged = deep_merge(file_data, overrides or {})
    config = validate_config(merged, overrides_source if overrides else source_name)

    root = config.workspace.root
    if workspace is not None and "root" not in (overrides or {}).get("workspace", {}):
        root = Path(workspace)
    elif not root.is_absolute():
        root = (path.parent if path is not None else base_dir) / root
    config.workspace.root = Path(os.path.abspath(root))
    return config


def may_declare_mcp_servers(config: AppConfig) -> bool:
    """Whether any MCP source could hold a server: ``mcp.servers``, or a workspace MCP file
    that is read. Only presence is checked (cheap, and no MCP code is imported); the
    files are parsed by ``agent.mcp.sources``."""
    root, mcp = config.workspace.root, config.mcp
    return bool(
        mcp.servers
        or (mcp.vscode_config and (root / VSCODE_MCP_FILE).is_file())
        or (mcp.mcp_json and (root / MCP_JSON_FILE).is_file())
    )
