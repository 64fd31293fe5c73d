"""Configuration models: the shape of ``.agentls.yaml`` and of the user config.

Every model forbids unknown keys, so a typo such as ``llm.timout`` is an error that
names the key path and where it came from, never a silently ignored setting. How the
layers (defaults, user config, workspace file, editor settings and flags) are combined,
and what an untrusted workspace may set, is ``agent.config.loader``.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr, model_validator
from typing_extensions import TypeAliasType

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
    vision: bool | None = Field(
        None,
        description="Whether the model takes images; unset: litellm's model list says "
        "(a local or unknown model counts as not).",
    )
    worker_idle_seconds: float = Field(
        300,
        ge=0,
        description="The language server's model worker (the process that makes the model "
        "calls: ~40 MB for an OpenAI-compatible endpoint, ~250 MB with litellm) ends after "
        "this many seconds without a run or a model call, and starts again when next "
        "needed; 0 keeps it until the server exits.",
    )
    worker_at_start: bool = Field(
        False,
        description="Start the model worker right after the language server starts instead "
        "of at the first sign of a run (`agent/prepare`, which the VS Code extension sends when "
        "its panel opens): for editors that never send it, so that the first run does not wait "
        "~3 s for litellm, at the cost of its memory while idle.",
    )
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
    description: str = Field(
        "", description="One line for agent pickers (`agent/agents`, the panel, the CLI)."
    )
    allowed_tools: list[str] = Field(
        default_factory=list, description="Tools this agent may use; empty means all of them."
    )
    allowed_commands: list[str] = Field(
        default_factory=list,
        description="Shell commands that run without asking under `confirm-sensitive` (allow "
        "rules of this agent, added to `commands.allow`): glob patterns matched against every "
        "simple command the shell would run (`pytest*` = pytest with any arguments, `git "
        "status` = exactly that). Chains, pipes and substitutions are allowed only when every "
        "part matches; redirection to files, wrappers (`env`, `timeout`, `sudo`…), `eval`, "
        "`bash -c` and options that run code (`git -c`, `find -exec`, `sed`'s `e`, `python "
        "-c`, `xargs`…) always ask, as does everything when no sandbox is available.",
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
    model: str | None = Field(
        None,
        min_length=1,
        description="The model this agent's runs use (as `llm.model`: `openai/gpt-4o-mini`, "
        "`ollama/llama3.1`...); `llm.model` when absent. A run's own `model` and the "
        "session's `/model` choice come first. Not settable by an untrusted folder.",
    )
    isolation: Literal["none", "worktree"] = Field(
        "none",
        description="When this agent runs as a subagent that edits: `none` (in the workspace, "
        "one editing subagent at a time) or `worktree` (in a worktree session of its own, "
        "kept for the user to apply or discard).",
    )

    # Not a field: a config file must not be able to say where it came from. Empty: the
    # settings' ``agents:`` (or a built-in); else the agent file it was read from.
    _source: str = PrivateAttr("")

    @property
    def source(self) -> str:
        """The agent file that defines it (workspace-relative, or ``your agents/x.md``),
        or empty for the settings' ``agents:`` and the built-ins."""
        return self._source

    def set_source(self, label: str) -> None:
        self._source = label


class CommandRulesConfig(_Strict):
    """Rules for the shell commands the agent runs, in three tiers. Each is a glob pattern
    matched against every simple command of a command line (as `allowed_commands`).
    `deny` wins over everything, `yolo` and "allow for this run" included; then `ask`;
    then `allow`. Rules add up across the user config and a trusted workspace; an
    untrusted workspace may add `deny` and `ask` rules only."""

    allow: list[str] = Field(
        default_factory=list,
        description="Commands that run without asking under `confirm-sensitive` (for every "
        "agent, besides its own `allowed_commands`), when every part of the command line "
        'matches one and none runs code it was given. "Always allow" at a prompt adds '
        "to this list in the user config.",
    )
    ask: list[str] = Field(
        default_factory=list,
        description='Commands that always ask, even under `yolo`, after "allow for this '
        'run" or when an allow rule matches too; also matched inside wrappers, `bash -c` '
        "and `find -exec`.",
    )
    deny: list[str] = Field(
        default_factory=list,
        description="Commands that never run, in any mode: the model is told which rule "
        "refused it. Also matched inside wrappers (`timeout 5 rm`), `bash -c`, `eval`, "
        "`xargs` and `find -exec`; a command that cannot be checked against them asks.",
    )


class LoggingConfig(_Strict):
    """Where the server and the CLI write their logs (never to the LSP stream)."""

    level: Literal["debug", "info", "warn", "error"] = Field("info", description="Log level.")
    file: Path | None = Field(None, description="Optional JSONL log file.")
    verbose: int = Field(0, ge=0, description="0=warn, 1=info, 2=debug, 3+=everything.")


class WorkspaceConfig(_Strict):
    """The directory the agent works in; every file operation is confined to it."""

    root: Path = Field(Path("."), description="Workspace root, relative to the config file.")
    allow_delete: bool = Field(False, description="Allow the delete_file tool.")
    read_across_folders: bool = Field(
        False,
        description="In a multi-root workspace, let a run read a file of another folder "
        "the user attaches (read-only); else it is refused. Only your user config may set it.",
    )


MCPTransport = Literal["stdio", "http", "sse"]
#: Who declared an MCP server: the user (user config, ``--config``), the editor (its
#: settings, an ACP client's session) or the workspace (``.agentls.yaml`` and the
#: workspace's MCP files). Only a workspace's servers need the user's approval to start.
ServerSource = Literal["user", "editor", "workspace"]


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

    # Not fields: a config file must not be able to say where it came from. Until the
    # loader says otherwise, a server is taken to be the workspace's (asks before starting).
    _source: ServerSource = PrivateAttr("workspace")
    _source_label: str = PrivateAttr(".agentls.yaml")

    @property
    def source(self) -> ServerSource:
        return self._source

    @property
    def source_label(self) -> str:
        """Where it was declared, for messages: a file name, "editor settings"..."""
        return self._source_label

    def set_source(self, source: ServerSource, label: str) -> None:
        self._source = source
        self._source_label = label

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
    symbols_idle_seconds: float = Field(
        300,
        ge=0,
        description="The language server's symbol process (the repo map's and find_symbol's "
        "symbols, tens of MB on a large workspace) ends after this many seconds without a "
        "question once it has filled, and starts again from its disk cache when next needed "
        "(`agent/prepare` or a run); 0 keeps it until the server exits.",
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
    instructions_bytes: int = Field(
        32 * 1024,
        ge=0,
        description="Budget of the project instructions given to the model (AGENTS.md and "
        "its fallbacks, in bytes): files past it are cut or left out, and the user is told.",
    )


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
    keep: int = Field(
        200,
        ge=0,
        description="How many sessions the folder keeps: when a run starts a new session, the "
        "least recently used beyond this many are removed with their checkpoints (each "
        "session's checkpoints hold at most 64 MiB). 0 keeps every session.",
    )


class EditorConfig(_Strict):
    """What the editor integration says about the editor (set in initializationOptions)."""

    confirms_edits: bool = Field(
        False,
        description="The editor itself asks before applying every server edit (Emacs eglot "
        "with `eglot-confirm-server-initiated-edits`), so edits that need confirmation are "
        "sent plain and its answer is the user's.",
    )


class LanguageServerConfig(_Strict):
    """A language server agentls may start itself to learn the problems of the files a run
    edits, when no editor answers `agent/diagnostics`."""

    name: str = Field(min_length=1, description="How messages name it, e.g. `basedpyright`.")
    command: list[str] = Field(
        min_length=1,
        description="The program and its arguments; the program is looked up on PATH and the "
        "server is skipped when it is not found.",
    )
    files: dict[str, str] = Field(
        min_length=1,
        description="File extensions it checks, each with the LSP language id it is opened "
        'with, e.g. `{".py": "python"}`.',
    )
    initialization_options: dict[str, Any] | None = Field(
        None, description="Sent as `initializationOptions`."
    )
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="Its settings: answered to `workspace/configuration` by section (dotted "
        'keys walk into it, e.g. `{"basedpyright": {"analysis": {...}}}`).',
    )


def default_language_servers() -> list[LanguageServerConfig]:
    """For each language the usual servers, the first found on PATH serving it."""
    python = {".py": "python", ".pyi": "python"}
    script = {
        ".ts": "typescript",
        ".mts": "typescript",
        ".cts": "typescript",
        ".tsx": "typescriptreact",
        ".js": "javascript",
        ".mjs": "javascript",
        ".cjs": "javascript",
        ".jsx": "javascriptreact",
    }
    return [
        LanguageServerConfig(
            name="basedpyright", command=["basedpyright-langserver", "--stdio"], files=python
        ),
        LanguageServerConfig(
            name="pyright", command=["pyright-langserver", "--stdio"], files=python
        ),
        LanguageServerConfig(
            name="typescript-language-server",
            command=["typescript-language-server", "--stdio"],
            files=script,
        ),
        LanguageServerConfig(name="gopls", command=["gopls"], files={".go": "go"}),
        LanguageServerConfig(
            name="rust-analyzer", command=["rust-analyzer"], files={".rs": "rust"}
        ),
    ]


class DiagnosticsConfig(_Strict):
    """Problems after edits: the errors and warnings an edit introduced are added to its
    tool result, and `get_problems` lists the current ones. They come from the editor when
    it answers `agent/diagnostics`, else from language servers agentls starts itself."""

    enabled: bool = Field(
        True,
        description="Check the problems of edited files (and offer `get_problems`); false "
        "starts no language server (code navigation then answers by name) and adds no wait to "
        "an edit.",
    )
    wait_ms: int = Field(
        2000,
        ge=0,
        le=60000,
        description="Longest an edit's result waits for the diagnostics of the new text to "
        "settle; there is no wait when nothing checks the file.",
    )
    max_problems: int = Field(
        10, ge=1, le=200, description="New problems listed in an edit's result; the rest counted."
    )
    servers: list[LanguageServerConfig] = Field(
        default_factory=default_language_servers,
        description="The language servers agentls may start (trusted folders only: they may "
        "run the project's code). For each file extension the first one found on PATH serves "
        "it, started at its first use and ended with the run's owner (the CLI run, the ACP "
        "connection, the language server). Setting it replaces the whole default list: "
        "basedpyright, pyright, typescript-language-server, gopls, rust-analyzer.",
    )


HookEvent = Literal[
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact", "Stop"
]


class HookCommand(_Strict):
    """One command a hook runs: the event arrives as JSON on its stdin."""

    type: Literal["command"] = Field("command", description="Only `command` hooks exist.")
    command: str = Field(min_length=1, description="A shell command, run with `bash -c`.")
    timeout: float = Field(60, gt=0, le=600, description="Seconds before it is stopped.")


class HookMatcher(_Strict):
    """The hooks of one event for the tools ``matcher`` names."""

    matcher: str = Field(
        "",
        description="Tool names the hooks apply to (PreToolUse, PostToolUse): a name, "
        "`a|b`, a regular expression, or empty / `*` for every tool.",
    )
    hooks: list[HookCommand] = Field(min_length=1)


class WorktreeConfig(_Strict):
    setup: str | None = Field(
        None,
        description="A shell command run in a new worktree session before its first run "
        "(e.g. `make deps`), in the sandbox the build agent's commands get; its output is "
        "shown and a failure stops the run (the worktree is kept).",
    )
    setup_timeout: float = Field(
        600.0, gt=0, description="Seconds the setup command may take before it is stopped."
    )


class SubagentsConfig(_Strict):
    """Subagents: agents the model starts with the `delegate` tool, each with a fresh
    conversation of its own; the parent reads only their final reports."""

    enabled: bool = Field(True, description="Offer the `delegate` tool to the model.")
    explore_model: str | None = Field(
        None,
        min_length=1,
        description="The model of the built-in `explore` agent (a cheaper one, e.g. "
        "`openai/gpt-4o-mini`); the run's model when absent. Not settable by an untrusted "
        "folder.",
    )
    max_report_chars: int = Field(
        6000, ge=200, description="The longest final report a subagent hands back; cut past it."
    )
    max_parallel: int = Field(
        4, ge=1, description="Read-only subagents that may run at once in one run."
    )
    token_budget: int | None = Field(
        200_000,
        ge=1,
        description="Tokens one subagent may spend before it is stopped (its own budget, "
        "apart from the parent's); none when null.",
    )


class SkillsConfig(_Strict):
    """Agent Skills: folders with a `SKILL.md` the model loads when one applies."""

    enabled: bool = Field(True, description="Offer the skills' catalogue and `load_skill`.")
    catalogue_chars: int = Field(
        8000,
        ge=0,
        description="Budget of the skills' catalogue in the system prompt (names and "
        "descriptions, in characters): skills past it are left out, and the user is told.",
    )


class AppConfig(_Strict):
    """The root of `.agentls.yaml`."""

    llm: LLMConfig = Field(default_factory=LLMConfig, description="Model access.")
    agents: dict[str, AgentConfig] = Field(
        default_factory=dict,
        description="Custom agents, by name (override or add to the built-ins); they win over "
        "agent files of the same name (`.claude/agents/*.md`...: docs/agents.md).",
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
    commands: CommandRulesConfig = Field(
        default_factory=CommandRulesConfig,
        description="Allow, ask and deny rules for shell commands.",
    )
    diagnostics: DiagnosticsConfig = Field(
        default_factory=DiagnosticsConfig, description="Problems after edits."
    )
    worktree: WorktreeConfig = Field(
        default_factory=WorktreeConfig, description="Worktree sessions."
    )
    subagents: SubagentsConfig = Field(
        default_factory=SubagentsConfig, description="Subagents (the `delegate` tool)."
    )
    skills: SkillsConfig = Field(default_factory=SkillsConfig, description="Agent Skills.")
    hooks: dict[HookEvent, list[HookMatcher]] = Field(
        default_factory=dict,
        description="Commands run at events of a run (Claude Code's format): SessionStart, "
        "UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, Stop.",
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
