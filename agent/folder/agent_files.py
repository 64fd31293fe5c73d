"""Agents defined in Markdown files: the body is the system prompt, the YAML front matter
says the rest.

Where they are read, lowest precedence first (a later one replaces an earlier one of the
same name, and a notice says which won):

1. the user's own: ``agents/*.md`` in the user config directory;
2. the workspace's ``.github/agents/*.agent.md`` (Copilot's custom agents);
3. the workspace's ``.claude/agents/*.md`` (Claude Code's subagents);
4. the workspace's ``.agentls/agents/*.md`` (agentls's own).

The settings' ``agents:`` (the user config, ``.agentls.yaml``) win over every file; a
file wins over a built-in agent. The front matter keys of Claude Code and Copilot that
map onto an agent are read as such (``tools`` with their tool names:
``agent_tool_names``; ``model``; ``maxTurns``; ``permissionMode``; ``isolation``...), as
are agentls's own (``confirm_mode``, ``sandbox``...); docs/agents.md has the table.

Trust follows prompt files: a workspace's agent file in a folder the user has not
trusted keeps its text (prompt, description) and what only narrows what the agent may
do, measured from the user's own ``build`` agent (``agent.config.agent_bounds``); its
``model`` and anything looser are ignored and named in the folder's trust notice, and it
cannot replace a built-in agent. The user's own files and a trusted folder's are obeyed.
A file that cannot be read or parsed is named (with the line) and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentls.agent.config.agent_bounds import REACH_KEYS, loosening, reach_of
from agentls.agent.config.agents import DEFAULT_AGENTS, MIXED, NO_TOOLS, READ_ONLY_TOOLS
from agentls.agent.config.models import AgentConfig
from agentls.agent.config.userdirs import is_within, user_config_dir
from agentls.agent.folder.agent_tool_names import AGENTLS_TOOLS, map_tools, split_tool_list
from agentls.agent.prompts.front_matter import FrontMatterError, split_front_matter
from agentls.agent.prompts.instructions import read_instruction_file
from agentls.agent.prompts.slash_commands import NAME

#: The workspace's folders of agent files, lowest precedence first: (folder, suffix).
WORKSPACE_FOLDERS = (
    (".github/agents", ".agent.md"),
    (".claude/agents", ".md"),
    (".agentls/agents", ".md"),
)
#: The user's own, in the user config directory.
USER_FOLDER = ("agents", ".md")

#: The agent an untrusted folder's new agent starts from, as in ``agent.config.untrusted``.
BASE_AGENT = "build"

#: Claude Code's model aliases: not litellm ids (which provider, which version?).
_CLAUDE_MODEL_ALIASES = {"sonnet", "opus", "haiku", "opusplan", "default"}
_PERMISSION_MODES = {
    "default": "confirm-sensitive",
    # agentls has no mode that takes edits without asking and asks before commands; the
    # stricter one is kept rather than the looser.
    "acceptEdits": "confirm-sensitive",
    # Claude Code refuses what was not allowed beforehand; agentls asks instead.
    "dontAsk": "confirm-sensitive",
    "bypassPermissions": "yolo",
}
#: agentls's own keys, taken as they are (validated with the agent).
_OWN_KEYS = (
    "confirm_mode",
    "sandbox",
    "network",
    "allowed_commands",
    "command_timeout",
    "max_steps",
)
_MAPPED_KEYS = {
    "name",
    "description",
    "tools",
    "allowed_tools",
    "disallowedTools",
    "model",
    "maxTurns",
    "max_turns",
    "permissionMode",
    "isolation",
    *_OWN_KEYS,
}
#: Keys of those formats that only concern their own UI or runtime: read without a word.
_QUIET_KEYS = {
    "color",
    "argument-hint",
    "target",
    "handoffs",
    "user-invocable",
    "user-invokable",
    "disable-model-invocation",
    "infer",
    "metadata",
    "background",
    "effort",
    "agents",
}
#: Keys that would change what the agent does, which agentls does not take from here.
_UNSUPPORTED_KEYS = {"hooks", "mcpServers", "mcp-servers", "skills", "memory"}


#: Sets one AgentConfig key from a front matter key: (key, value, front matter key).
Put = Callable[[str, Any, str], None]


@dataclass
class AgentFiles:
    """The agents the files define, by name, and what the user should hear."""

    agents: dict[str, AgentConfig] = field(default_factory=dict)
    #: Broken files, unknown keys and tools, name clashes: one sentence each.
    notices: list[str] = field(default_factory=list)
    #: What an untrusted folder's files lost (trusting the folder would restore it), for
    #: the folder's trust notice.
    ignored: list[str] = field(default_factory=list)


@dataclass
class _Parsed:
    name: str
    label: str
    data: dict[str, Any]
    #: Which front matter key set each of ``data``'s keys, for messages.
    keys: dict[str, str]
    text: str


def load_agent_files(
    root: Path,
    settings_agents: Mapping[str, AgentConfig],
    *,
    trusted: bool,
    user_dir: Path | None = None,
) -> AgentFiles:
    """The agents of the files (see the module's doc) for a folder at ``root``;
    ``settings_agents`` are the settings' ``agents:``, which win a clash."""
    found = AgentFiles()
    user = user_dir if user_dir is not None else user_config_dir()
    chosen: dict[str, tuple[AgentConfig, str]] = {}
    own: dict[str, AgentConfig] = {}
    folder, suffix = USER_FOLDER
    for parsed in _parse_folder(user / folder, suffix, user, "your ", found.notices):
        agent = _agent(parsed, found.notices)
        if agent is not None:
            _choose(chosen, parsed, agent, found.notices)
            own[parsed.name] = agent
    build = settings_agents.get(BASE_AGENT) or DEFAULT_AGENTS[BASE_AGENT][1]
    for folder, suffix in WORKSPACE_FOLDERS:
        for parsed in _parse_folder(root / folder, suffix, root, "", found.notices):
            if not trusted:
                if parsed.name in DEFAULT_AGENTS and parsed.name not in settings_agents:
                    found.ignored.append(
                        f"{parsed.label} (it would replace the built-in agent {parsed.name})"
                    )
                    continue
                _narrowed(parsed, own.get(parsed.name) or build, found.ignored)
            agent = _agent(parsed, found.notices)
            if agent is not None:
                _choose(chosen, parsed, agent, found.notices)
    for name, (agent, label) in chosen.items():
        if name in settings_agents:
            found.notices.append(
                f"{label}: the agent {name} of the settings' `agents:` wins over this file"
            )
            continue
        if name in DEFAULT_AGENTS:
            found.notices.append(f"{label} replaces the built-in agent {name}")
        found.agents[name] = agent
    return found


def without_file_agents(agents: Mapping[str, AgentConfig]) -> dict[str, AgentConfig]:
    """``agents`` without those read from files: the settings' own."""
    return {name: agent for name, agent in agents.items() if not agent.source}


def _choose(
    chosen: dict[str, tuple[AgentConfig, str]],
    parsed: _Parsed,
    agent: AgentConfig,
    notices: list[str],
) -> None:
    previous = chosen.get(parsed.name)
    if previous is not None:
        notices.append(f"{parsed.label} replaces the agent {parsed.name} of {previous[1]}")
    chosen[parsed.name] = (agent, parsed.label)


def _parse_folder(
    folder: Path, suffix: str, base: Path, prefix: str, notices: list[str]
) -> list[_Parsed]:
    if not folder.is_dir():
        return []
    parsed = []
    for path in sorted(folder.glob(f"*{suffix}")):
        if not path.is_file():
            continue
        label = prefix + path.relative_to(base).as_posix()
        if not prefix and not is_within(path, base):
            # A repository's link to a file of yours would send its text to the model.
            notices.append(f"{label} is not used: it is a link that leads outside the folder")
            continue
        one = parse_agent_file(path, label, suffix, notices)
        if one is not None:
            parsed.append(one)
    return parsed


def parse_agent_file(path: Path, label: str, suffix: str, notices: list[str]) -> _Parsed | None:
    """One file's agent as AgentConfig data, or None with a notice naming the file."""
    text = read_instruction_file(path, label, notices)
    if text is None:
        return None
    try:
        meta, body = split_front_matter(text)
    except FrontMatterError as exc:
        notices.append(f"{label} is not used: {exc}")
        return None
    stem = path.name[: -len(suffix)]
    if stem.endswith(".agent"):
        stem = stem[: -len(".agent")]
    given = meta.get("name")
    # Copilot's `name` is a display name ("Code Reviewer"): the file's stem names it then.
    name = given.strip() if isinstance(given, str) and NAME.match(given.strip()) else stem
    if not NAME.match(name) or name == MIXED:
        notices.append(f"{label}: {name!r} cannot be an agent's name (letters, digits, - _ .)")
        return None
    if not body.strip():
        notices.append(f"{label} is not used: its body (the agent's prompt) is empty")
        return None
    parsed = _Parsed(name, label, {"system_prompt": body.strip()}, {}, text)
    notes: list[str] = []
    _map_front_matter(meta, parsed, notes)
    notices.extend(f"{label}: {note}" for note in notes)
    return parsed


def _map_front_matter(meta: dict[str, Any], parsed: _Parsed, notes: list[str]) -> None:
    data, keys = parsed.data, parsed.keys

    def put(key: str, value: Any, source: str) -> None:
        data[key] = value
        keys[key] = source

    unknown = sorted(set(meta) - _MAPPED_KEYS - _QUIET_KEYS - _UNSUPPORTED_KEYS)
    if unknown:
        notes.append("ignoring unknown front matter key(s) " + ", ".join(unknown))
    unsupported = sorted(set(meta) & _UNSUPPORTED_KEYS)
    if unsupported:
        notes.append("agentls does not take " + ", ".join(unsupported) + " from agent files")
    if "description" in meta and meta["description"] is not None:
        put("description", " ".join(str(meta["description"]).split()), "description")
    tools_key = "tools" if "tools" in meta else "allowed_tools" if "allowed_tools" in meta else ""
    if tools_key:
        _map_tools(meta[tools_key], tools_key, put, notes)
    if "disallowedTools" in meta:
        _remove_tools(meta["disallowedTools"], data, put, notes)
    mode = meta.get("permissionMode")
    if mode is not None:
        _map_permission_mode(str(mode), data, put, notes)
    if "model" in meta:
        _map_model(meta["model"], put, notes)
    for key in ("maxTurns", "max_turns"):
        if key in meta:
            put("max_steps", meta[key], key)
    if "isolation" in meta:
        put("isolation", meta["isolation"], "isolation")
    for key in _OWN_KEYS:
        if key in meta:
            put(key, meta[key], key)


def _map_tools(value: Any, key: str, put: Put, notes: list[str]) -> None:
    names = split_tool_list(value)
    if names is None:
        notes.append(f"`{key}` must be a list of tool names; ignored")
        return
    mapped = map_tools(names)
    if mapped.unknown:
        notes.append("no such tool in agentls, left out: " + ", ".join(mapped.unknown))
    if mapped.wildcards:
        notes.append(
            "every tool of an MCP server cannot be named at once here (name each as "
            "mcp_<server>_<tool>), left out: " + ", ".join(mapped.wildcards)
        )
    # Named none that agentls has: the agent gets none, never every tool.
    put("allowed_tools", mapped.tools or [NO_TOOLS], key)


def _remove_tools(value: Any, data: dict[str, Any], put: Put, notes: list[str]) -> None:
    names = split_tool_list(value)
    if names is None:
        notes.append("`disallowedTools` must be a list of tool names; ignored")
        return
    removed = set(map_tools(names).tools)
    # Without `tools` the agent would have every tool: every built-in one then, as the
    # settings cannot say "all but these" (MCP tools are named one by one).
    tools = data.get("allowed_tools") or list(AGENTLS_TOOLS)
    put("allowed_tools", [t for t in tools if t not in removed] or [NO_TOOLS], "disallowedTools")


def _map_permission_mode(mode: str, data: dict[str, Any], put: Put, notes: list[str]) -> None:
    if mode == "plan":
        tools = data.get("allowed_tools") or READ_ONLY_TOOLS
        reading = [t for t in tools if t in READ_ONLY_TOOLS]
        put("allowed_tools", reading or [NO_TOOLS], "permissionMode")
        return
    confirm = _PERMISSION_MODES.get(mode)
    if confirm is None:
        notes.append(f"permissionMode {mode!r} is not one agentls knows; ignored")
        return
    put("confirm_mode", confirm, "permissionMode")


def _map_model(value: Any, put: Put, notes: list[str]) -> None:
    if isinstance(value, list):  # Copilot: the first one available
        value = value[0] if value else None
    if value is None or str(value).strip() in ("", "inherit"):
        return
    model = str(value).strip()
    if model in _CLAUDE_MODEL_ALIASES or any(c.isspace() for c in model):
        notes.append(
            f"model {model!r} is not a litellm model id (e.g. anthropic/claude-sonnet-4-5); "
            "the agent uses the run's model"
        )
        return
    put("model", model, "model")


def _narrowed(parsed: _Parsed, base: AgentConfig, ignored: list[str]) -> None:
    """``parsed`` as an untrusted folder may have it: its reach at most ``base``'s."""
    data, keys = parsed.data, parsed.keys
    lost: list[str] = []
    if "model" in data:
        lost.append(keys.pop("model"))
        del data["model"]
    for key, value in list(data.items()):
        if key not in REACH_KEYS:
            continue
        try:
            why = loosening(key, value, base)
        except (TypeError, ValueError):
            continue  # an invalid value: the validation names it
        if why is not None:
            lost.append(f"{keys.pop(key, key)} ({why})")
            del data[key]
    for key, value in reach_of(base).items():
        data.setdefault(key, value)
    if lost:
        ignored.append(f"{parsed.label}'s " + ", ".join(lost))


def _agent(parsed: _Parsed, notices: list[str]) -> AgentConfig | None:
    try:
        agent = AgentConfig.model_validate(parsed.data)
    except ValidationError as exc:
        notices.append(f"{parsed.label} is not used: {_invalid(exc, parsed)}")
        return None
    agent.set_source(parsed.label)
    return agent


def _invalid(exc: ValidationError, parsed: _Parsed) -> str:
    problems = []
    for error in exc.errors():
        field_name = str(error["loc"][0]) if error["loc"] else ""
        key = parsed.keys.get(field_name, field_name)
        line = _line_of(parsed.text, key)
        where = f" (line {line})" if line else ""
        problems.append(f"`{key}`{where}: {error['msg']}")
    return "; ".join(problems)


def _line_of(text: str, key: str) -> int | None:
    """The line of the front matter that sets ``key``, counted from the file's first."""
    for number, line in enumerate(text.splitlines(), start=1):
        if number > 1 and line.strip() == "---":
            return None
        if line.startswith(f"{key}:"):
            return number
    return None
