"""The agents a run can use: the built-ins, overridden or extended by ``config.agents``.

An agent is an AgentConfig: a system prompt, the tools it may use, its confirm
mode and step budget. ``mixed`` is not an agent of its own but a mode: ``plan``
first (read-only, no streaming), then ``build`` with that plan. ``explore`` is meant
to be handed broad searches as a subagent (its model: ``subagents.explore_model``).

``config.agents`` holds the settings' ``agents:`` and the agents read from files
(``agent.folder.agent_files``, merged in by the folder's settings), each of which
says where it came from (``AgentConfig.source``).
"""

from __future__ import annotations

from dataclasses import dataclass

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.errors import AgentNotFoundError

#: What an agent with no tool at all is allowed: a name no tool has (an empty list would
#: mean every tool).
NO_TOOLS = "(none)"

#: Where an agent comes from, as listings say it (besides an agent file's path).
BUILT_IN = "built-in"
CONFIG = "config"

READ_ONLY_TOOLS = [
    "read_file",
    "list_files",
    "search_code",
    "grep",
    "find_symbol",
    "find_references",
    "navigate_code",
    "find_files",
    "get_problems",
    "update_plan",
    "ask_user",
    # A subagent never has more tools than the agent that starts it: from a read-only
    # agent, only read-only children.
    "delegate",
    "load_skill",
]

_BUILD_PROMPT = """You are agentls, a coding agent working inside the user's editor on the \
workspace described below. Do the task the user gives you with the tools you have.

How to work:
- Look before you change: read the files you will edit (read_file, search_code, grep, \
find_files). Never guess a file's content.
- Change files with edit_file (one exact, unique replacement) or apply_patch (a unified diff); \
use write_file only for new files or complete rewrites.
- The user confirms or rejects your edits. A tool result tells you exactly what happened: \
if an edit was rejected, do not repeat it; if a file changed since you read it, read it again. \
When an edit's result lists new problems (errors, warnings) it introduced, fix them; \
get_problems lists a file's problems.
- Keep changes minimal and in the style of the surrounding code.
- When you are done, answer with a short summary of what you changed and anything left to do."""

_PLAN_PROMPT = """You are agentls in planning mode: you may read the workspace but not change it. \
Study the code the task concerns (read_file, search_code, grep, find_files) and answer with a \
concrete, numbered plan: which files to change, how, and how to check the result. Do not write \
code beyond short illustrative snippets."""

_EXPLORE_PROMPT = """You are agentls's explore agent: another agent handed you a question about \
the workspace. You may read and search it but not change it. Search broadly first (grep, \
search_code, find_files, find_symbol, find_references), then read only the parts that matter. \
Answer with a concise report: what you found and where (paths with line numbers), the few \
lines that prove it, and what you could not find. Never paste whole files: whoever asked \
reads only your report."""

_REVIEW_PROMPT = """You are agentls in review mode: you may read the workspace but not change it. \
Review the code the user points at (or the most relevant files) for bugs, risky behaviour, \
missing tests and unclear code. Answer with findings ordered by severity, each naming the file \
and line."""


#: What explore may use: the read-only tools that read and search (and ``load_skill``
#: once it is among them), not the ones that talk to the user: a subagent reports.
EXPLORE_TOOLS = [tool for tool in READ_ONLY_TOOLS if tool not in ("update_plan", "ask_user")]
EXPLORE = "explore"


@dataclass(frozen=True)
class AgentInfo:
    name: str
    description: str
    read_only: bool
    #: ``built-in``, ``config`` (the settings' ``agents:``), or the agent file's path
    #: (workspace-relative, or ``your agents/x.md`` in the user config directory).
    source: str = BUILT_IN


DEFAULT_AGENTS: dict[str, tuple[str, AgentConfig]] = {
    "build": (
        "Reads and changes the workspace to do the task.",
        AgentConfig(system_prompt=_BUILD_PROMPT),
    ),
    "plan": (
        "Reads the workspace and answers with a plan; changes nothing.",
        AgentConfig(system_prompt=_PLAN_PROMPT, allowed_tools=READ_ONLY_TOOLS, max_steps=15),
    ),
    "review": (
        "Reads the workspace and reviews the code; changes nothing.",
        AgentConfig(system_prompt=_REVIEW_PROMPT, allowed_tools=READ_ONLY_TOOLS, max_steps=15),
    ),
    EXPLORE: (
        "Searches and reads the workspace and answers with a concise report (paths and "
        "lines); changes nothing. For broad searches, as a subagent.",
        AgentConfig(system_prompt=_EXPLORE_PROMPT, allowed_tools=EXPLORE_TOOLS, max_steps=15),
    ),
}

MIXED = "mixed"


class AgentRegistry:
    """Default agents, overridden or extended by ``config.agents``."""

    def __init__(self, config: AppConfig) -> None:
        self._agents: dict[str, tuple[str, AgentConfig]] = dict(DEFAULT_AGENTS)
        self._sources = dict.fromkeys(DEFAULT_AGENTS, BUILT_IN)
        for name, agent in config.agents.items():
            builtin = DEFAULT_AGENTS.get(name)
            where = f"the file {agent.source}" if agent.source else "the config"
            fallback = builtin[0] if builtin else f"Custom agent {name} from {where}."
            self._agents[name] = (agent.description or fallback, agent)
            self._sources[name] = agent.source or CONFIG
        explore_model = config.subagents.explore_model
        explore = self._agents.get(EXPLORE)
        if explore_model and explore is not None and explore[1].model is None:
            # The cheaper model explore is meant for, unless its definition names one.
            self._agents[EXPLORE] = (
                explore[0],
                explore[1].model_copy(update={"model": explore_model}),
            )

    def names(self) -> list[str]:
        return [*sorted(self._agents), MIXED]

    def get(self, name: str) -> AgentConfig:
        try:
            return self._agents[name][1].model_copy(deep=True)
        except KeyError:
            raise AgentNotFoundError(
                f"unknown agent {name!r}; known agents: {', '.join(self.names())}"
            ) from None

    def list(self) -> list[AgentInfo]:
        infos = [
            AgentInfo(name, description, _is_read_only(agent), self._sources[name])
            for name, (description, agent) in sorted(self._agents.items())
        ]
        infos.append(
            AgentInfo(MIXED, "Plans first (plan agent), then builds with that plan.", False)
        )
        return infos

    def exists(self, name: str) -> bool:
        return name == MIXED or name in self._agents


def _is_read_only(agent: AgentConfig) -> bool:
    # An agent left with no tool at all (NO_TOOLS) changes nothing either.
    tools = set(agent.allowed_tools) - {NO_TOOLS}
    return bool(agent.allowed_tools) and tools <= set(READ_ONLY_TOOLS)
