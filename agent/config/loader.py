"""The effective configuration, built from layers, and what each layer may set.

Layers, lowest first:

1. the defaults of the models (``agent.config.models``);
2. the user config, ``config.yaml`` in the user config directory (``agent.config.userdirs``):
   the user's own settings, obeyed whole;
3. the workspace's ``.agentls.yaml``: obeyed whole only when the folder is trusted
   (``agent.config.trust``); in an untrusted folder only what cannot widen anything
   (``agent.config.untrusted``), and the workspace's MCP files are not read at all;
4. the overrides a front end passes (editor settings, command-line flags) and a file
   named with ``--config``: the user's own again.

Nested mappings merge key by key. Two lists merge instead of replacing: the command
rules (``commands.allow/ask/deny`` add up, so a workspace can never drop a user's deny
rule) and ``mcp.servers`` (merged by name; each server remembers which layer declared
it, because a workspace's server starts only after the user approved it).

Whatever the trust, the workspace cannot move agentls out of its folder:
``workspace.root`` stays inside the folder holding ``.agentls.yaml``, and
``sessions.dir`` and ``logging.file`` set by the workspace stay inside the workspace or
the user's own directories.

``first_run`` is the config of a run in a folder as far as the user has decided about
trusting it (``agent.config.trust`` keeps the decisions; this module reads them).
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError as PydanticValidationError

from agentls.agent.config.models import (
    CONFIG_FILE_NAME,
    MCP_JSON_FILE,
    VSCODE_MCP_FILE,
    AgentConfig,
    AppConfig,
    ServerSource,
)
from agentls.agent.config.trust import TrustStore
from agentls.agent.config.untrusted import filter_untrusted
from agentls.agent.config.userdirs import is_within, user_config_file, user_directories
from agentls.agent.errors import ConfigError
from agentls.agent.secrets import remember_secret_variable

LayerKind = Literal["user", "workspace", "explicit", "overrides"]

_SOURCE_OF_LAYER: dict[LayerKind, ServerSource] = {
    "user": "user",
    "workspace": "workspace",
    "explicit": "user",
    "overrides": "editor",
}

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Layer:
    kind: LayerKind
    #: How messages name it: ``.agentls.yaml``, the user config's path, "command-line flags".
    source: str
    data: dict[str, Any]
    #: What relative paths in it are relative to (its file's folder).
    base: Path


@dataclass
class LoadedConfig:
    """The effective config and what the user must hear about how it was made."""

    config: AppConfig
    trusted: bool
    #: The workspace's ``.agentls.yaml``, when there is one.
    workspace_file: Path | None = None
    #: Keys of the workspace file that did not apply (untrusted), with why where it helps.
    ignored: list[str] = field(default_factory=list)
    #: Workspace files that were not read (untrusted): ``.mcp.json``, ``.vscode/mcp.json``.
    ignored_files: list[str] = field(default_factory=list)
    #: A workspace file that could not be used at all (an untrusted folder's broken YAML).
    problems: list[str] = field(default_factory=list)
    #: What the workspace's agent files lost (untrusted): ``.claude/agents/x.md's model``.
    ignored_agent_files: list[str] = field(default_factory=list)
    #: What the user should hear about the agent files (broken ones, name clashes),
    #: trusted or not (``agent.folder.agent_files``).
    agent_notices: list[str] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.config.workspace.root

    @property
    def restricted(self) -> bool:
        """An untrusted folder that ships something its trust would change."""
        return not self.trusted and bool(
            self.ignored or self.ignored_files or self.ignored_agent_files or self.problems
        )

    def notice(self, how_to_trust: str) -> str | None:
        """One paragraph for the user, or None when trust changes nothing here."""
        if not self.restricted:
            return None
        parts = []
        if self.ignored:
            parts.append(f"{CONFIG_FILE_NAME} keys " + ", ".join(self.ignored))
        parts.extend(self.ignored_files)
        if self.ignored_agent_files:
            parts.append("in agent files " + "; ".join(self.ignored_agent_files))
        text = f"{self.root} is not a trusted folder"
        if parts:
            text += ", so agentls ignored " + "; ".join(parts)
        text += "."
        for problem in self.problems:
            text += f" {problem}."
        return f"{text} If you trust its authors, {how_to_trust}."


# -- reading and validating ---------------------------------------------------------------


def read_config_file(path: Path) -> dict[str, Any]:
    """Parse a YAML config file into a mapping; a YAML or shape error is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path.name}: not UTF-8 text ({exc.reason})") from exc
    import yaml  # here: a folder without config files never needs it (~20 ms to import)

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


def validate_config(data: Mapping[str, Any], source: str) -> AppConfig:
    """Validate plain data as an AppConfig, naming ``source`` in any error."""
    try:
        return AppConfig.model_validate(with_builtin_agents(data))
    except PydanticValidationError as exc:
        raise ConfigError(format_validation_error(exc, source, data)) from exc


def with_builtin_agents(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with each built-in agent it mentions completed from the built-in's
    definition: ``agents: {build: {confirm_mode: confirm-all}}`` changes one setting of
    ``build`` and keeps its prompt and tools."""
    from agentls.agent.config.agents import DEFAULT_AGENTS

    agents = data.get("agents")
    if not isinstance(agents, Mapping):
        return dict(data)
    completed = dict(agents)
    for name, entry in agents.items():
        if name in DEFAULT_AGENTS and isinstance(entry, Mapping):
            builtin = DEFAULT_AGENTS[name][1].model_dump(mode="json", exclude={"description"})
            completed[name] = deep_merge(builtin, entry)
    return {**data, "agents": completed}


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Merge ``override`` into a copy of ``base``; nested mappings merge, the rest replaces."""
    merged: dict[str, Any] = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def merge_layer(
    merged: Mapping[str, Any],
    layer: Mapping[str, Any],
    *,
    server_sources: dict[str, tuple[ServerSource, str]] | None = None,
    source: tuple[ServerSource, str] = ("workspace", CONFIG_FILE_NAME),
) -> dict[str, Any]:
    """``layer`` over ``merged``: ``deep_merge``, except that command rules add up and MCP
    servers merge by name (``server_sources`` records which layer declared each)."""
    data: dict[str, Any] = copy.deepcopy(dict(layer))
    rules = data.pop("commands", None)
    mcp = data.get("mcp")
    servers = mcp.pop("servers", None) if isinstance(mcp, dict) else None
    out = deep_merge(merged, data)
    if isinstance(rules, Mapping):
        current = out.setdefault("commands", {})
        for tier, patterns in rules.items():
            existing = list(current.get(tier) or [])
            current[tier] = existing + [p for p in patterns or [] if p not in existing]
    if isinstance(servers, list):
        by_name = {
            entry.get("name"): entry
            for entry in out.get("mcp", {}).get("servers", [])
            if isinstance(entry, Mapping)
        }
        for entry in servers:
            name = entry.get("name") if isinstance(entry, Mapping) else None
            by_name[name] = entry
            if server_sources is not None and isinstance(name, str):
                server_sources[name] = source
        out.setdefault("mcp", {})["servers"] = list(by_name.values())
    return out


# -- the layers -----------------------------------------------------------------------------


def user_layer(path: Path | None = None) -> Layer | None:
    """The user config, when it exists; a broken one is an error naming it."""
    path = path if path is not None else user_config_file()
    if not path.is_file():
        return None
    data = read_config_file(path)
    source = str(path)
    validate_config(data, source)
    if isinstance(data.get("workspace"), Mapping) and "root" in data["workspace"]:
        raise ConfigError(
            f"workspace.root: cannot be set in the user config ({source}): it would apply to "
            "every workspace; pass --workspace or set it in the workspace's .agentls.yaml"
        )
    return Layer("user", source, data, path.parent)


def _workspace_file(base_dir: Path) -> tuple[Path | None, str | None]:
    """The workspace's ``.agentls.yaml``, or why it is not used (a symlink leading out)."""
    path = base_dir / CONFIG_FILE_NAME
    if not path.is_file():
        return None, None
    if path.is_symlink() and not is_within(path, base_dir):
        return None, f"{CONFIG_FILE_NAME} is a symlink that leads outside the folder; not read"
    return path, None


def load(
    workspace: Path | str | None = None,
    config_file: Path | str | None = None,
    overrides: Mapping[str, Any] | None = None,
    overrides_source: str = "overrides",
    *,
    trusted: bool | None = None,
    user_file: Path | None = None,
    workspace_file: bool = True,
) -> LoadedConfig:
    """The effective config for ``workspace`` (default: the current directory).

    ``trusted=None`` asks the trust store about the folder. ``config_file`` names a file
    the user chose instead of the workspace's ``.agentls.yaml``: it is the user's own, so
    it is obeyed whole. ``user_file`` replaces the user config (tests);
    ``workspace_file=False`` leaves the workspace's file out (it is known to be broken).
    """
    base_dir = Path(os.path.abspath(workspace if workspace is not None else Path.cwd()))
    if trusted is None:
        trusted = TrustStore().is_trusted(base_dir)
    report = LoadedConfig(config=AppConfig(), trusted=trusted)

    layers: list[Layer] = []
    user = user_layer(user_file)
    if user is not None:
        layers.append(user)
    if config_file is not None:
        path = Path(config_file)
        data = read_config_file(path)
        validate_config(data, path.name)
        layers.append(Layer("explicit", path.name, data, path.parent.resolve()))
    elif workspace_file:
        workspace_layer = _workspace_layer(base_dir, layers, report)
        if workspace_layer is not None:
            layers.append(workspace_layer)
    if overrides:
        # An editor's settings may be a workspace's own (VS Code's .vscode/settings.json).
        kept = _without_user_only(dict(overrides), overrides_source)
        layers.append(Layer("overrides", overrides_source, kept, base_dir))

    merged: dict[str, Any] = {}
    server_sources: dict[str, tuple[ServerSource, str]] = {}
    for layer in layers:
        merged = merge_layer(
            merged,
            layer.data,
            server_sources=server_sources,
            source=(_SOURCE_OF_LAYER[layer.kind], layer.source),
        )
    last = layers[-1].source if layers else "defaults"
    config = validate_config(merged, last if not overrides else overrides_source)
    for server in config.mcp.servers:
        kind, label = server_sources.get(server.name, ("workspace", CONFIG_FILE_NAME))
        server.set_source(kind, label)

    config.workspace.root = _root(layers, base_dir, workspace is not None)
    _check_state_paths(config, layers)
    if not trusted:
        _ignore_workspace_mcp_files(config, report)
    # The key's variable may have any name (MY_LLM): it is a secret all the same.
    remember_secret_variable(config.llm.api_key_env)
    report.config = config
    return report


def _workspace_layer(base_dir: Path, below: Sequence[Layer], report: LoadedConfig) -> Layer | None:
    path, problem = _workspace_file(base_dir)
    if problem is not None:
        report.problems.append(problem)
    if path is None:
        return None
    report.workspace_file = path
    try:
        data = read_config_file(path)
        validate_config(data, path.name)
    except ConfigError as exc:
        if report.trusted:
            raise
        report.problems.append(f"{CONFIG_FILE_NAME} is not used: {exc}")
        return None
    if "hooks" in data:
        # A repository's hooks are programs: they run only from a trusted folder and once
        # the user approved their exact definition, which agent.hooks checks at each run,
        # so they never join the config the way the user's own hooks do.
        data = {key: value for key, value in data.items() if key != "hooks"}
        if not report.trusted:
            report.ignored.append("hooks")
    data = _without_user_only(data, path)
    worktree = data.get("worktree")
    if isinstance(worktree, dict) and "setup" in worktree:
        # A worktree's setup is a command run with no question asked: only the user's own
        # config may name it, never the repository being worked on, trusted or not.
        # Not listed with the keys trust would restore: trusting the folder changes nothing.
        rest = {k: v for k, v in worktree.items() if k != "setup"}
        data = {k: v for k, v in data.items() if k != "worktree"}
        if rest:
            data["worktree"] = rest
        log.warning("%s: worktree.setup ignored (only your own config may set it)", path)
    if not report.trusted:
        under = _merged(below)
        filtered = filter_untrusted(
            data,
            validate_config(under, "the user config"),
            _agents_below(under),
            _builtin_names(),
        )
        report.ignored.extend(filtered.ignored)
        data = filtered.kept
    return Layer("workspace", CONFIG_FILE_NAME, data, base_dir)


def _without_user_only(data: dict[str, Any], source: object) -> dict[str, Any]:
    """``data`` without what only the user's own config may set: reading the files of
    another workspace folder is the user's choice, never a repository's."""
    workspace = data.get("workspace")
    if not isinstance(workspace, dict) or "read_across_folders" not in workspace:
        return data
    log.warning(
        "%s: workspace.read_across_folders ignored (only your user config may set it)", source
    )
    rest = {k: v for k, v in workspace.items() if k != "read_across_folders"}
    return {**data, "workspace": rest}


def _merged(layers: Sequence[Layer]) -> dict[str, Any]:
    """The data of ``layers`` merged, as the loader merges them."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = merge_layer(merged, layer.data)
    return merged


def _agents_below(merged: Mapping[str, Any]) -> dict[str, AgentConfig]:
    """Each agent as the layers under the workspace define it (built-ins included)."""
    from agentls.agent.config.agents import DEFAULT_AGENTS

    agents = {name: agent for name, (_, agent) in DEFAULT_AGENTS.items()}
    if merged.get("agents"):
        agents.update(validate_config({"agents": merged["agents"]}, "the user config").agents)
    return agents


def _builtin_names() -> frozenset[str]:
    from agentls.agent.config.agents import DEFAULT_AGENTS

    return frozenset(DEFAULT_AGENTS)


def _last_setting(layers: Sequence[Layer], section: str, key: str) -> Layer | None:
    for layer in reversed(layers):
        value = layer.data.get(section)
        if isinstance(value, Mapping) and key in value:
            return layer
    return None


def _root(layers: Sequence[Layer], base_dir: Path, workspace_given: bool) -> Path:
    """Where the workspace is: ``--workspace`` (or the folder run in) unless an override,
    a file named with ``--config`` or the folder's own ``.agentls.yaml`` moves it."""
    layer = _last_setting(layers, "workspace", "root")
    if layer is None or (workspace_given and layer.kind != "overrides"):
        return base_dir
    root = Path(layer.data["workspace"]["root"])
    resolved = Path(os.path.abspath(root if root.is_absolute() else layer.base / root))
    if layer.kind == "workspace" and not is_within(resolved, layer.base):
        raise ConfigError(
            f"workspace.root: {root} leads outside the folder of {CONFIG_FILE_NAME} "
            f"({layer.base}); a workspace's config can only name a folder inside it"
        )
    return resolved


def _check_state_paths(config: AppConfig, layers: Sequence[Layer]) -> None:
    """A workspace's ``sessions.dir`` and ``logging.file`` must stay inside the workspace or
    the user's own directories (agentls writes there)."""
    root = config.workspace.root
    checks = (
        ("sessions", "dir", config.sessions.dir),
        ("logging", "file", config.logging.file),
    )
    for section, key, value in checks:
        layer = _last_setting(layers, section, key)
        if value is None or layer is None or layer.kind != "workspace":
            continue
        target = value if value.is_absolute() else root / value
        allowed = [root, *user_directories()]
        if not any(is_within(target, folder) for folder in allowed):
            raise ConfigError(
                f"{section}.{key}: {value} leads outside the workspace and your own "
                f"directories in {CONFIG_FILE_NAME}; agentls does not write there"
            )


def _ignore_workspace_mcp_files(config: AppConfig, report: LoadedConfig) -> None:
    """An untrusted folder's MCP files are not read at all."""
    root = config.workspace.root
    for relative, enabled in (
        (VSCODE_MCP_FILE, config.mcp.vscode_config),
        (MCP_JSON_FILE, config.mcp.mcp_json),
    ):
        if enabled and (root / relative).is_file():
            report.ignored_files.append(f"{relative.as_posix()} (its MCP servers)")
    config.mcp.vscode_config = False
    config.mcp.mcp_json = False


def load_config(
    workspace: Path | str | None = None,
    config_file: Path | str | None = None,
    overrides: Mapping[str, Any] | None = None,
    overrides_source: str = "overrides",
    *,
    trusted: bool | None = None,
    user_file: Path | None = None,
) -> AppConfig:
    """``load(...).config``: for callers that need no report."""
    return load(
        workspace,
        config_file,
        overrides,
        overrides_source,
        trusted=trusted,
        user_file=user_file,
    ).config


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


# -- the first run in a folder ------------------------------------------------------------

#: Loads the config of a folder, trusted or not (``load`` with the front end's own
#: arguments).
Loader = Callable[[bool], LoadedConfig]


@dataclass(frozen=True)
class FirstRun:
    """The config a run in a folder gets as far as the user has decided about it."""

    loaded: LoadedConfig
    #: Undecided, and trust would change something here: a front end that can ask the
    #: user asks once and records the answer either way (``TrustStore.set_trusted``); one
    #: that cannot runs with ``loaded`` and says why (``loaded.notice``).
    undecided: bool


def first_run(folder: Path, load: Loader, store: TrustStore | None = None) -> FirstRun:
    """The config for a run in ``folder``: trusted when the user trusts it, else untrusted.
    Folders that ship nothing trust would change are never undecided: there is nothing
    to ask about."""
    store = store if store is not None else TrustStore()
    state = store.state(folder)
    if state == "trusted":
        return FirstRun(load(True), undecided=False)
    loaded = load(False)
    return FirstRun(loaded, undecided=state == "unknown" and loaded.restricted)
