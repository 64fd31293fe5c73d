"""Turning a ``/name args`` prompt into the run it stands for, in every front end alike.

A prompt file's command becomes its expanded prompt, with its agent, its narrowed tools
and (from the user's own files or a trusted folder) its model. A workspace's prompt file,
trusted or not, may switch the run only to an agent that may do no more than the one the
user chose (``agent.config.agent_bounds``): a repository's ``agent: build`` must not turn the
user's read-only ``plan`` into an agent that edits and runs commands. Such a switch is
refused, the command runs with the user's agent and the run's notice says why; the user's
own prompt files switch freely. A skill's command runs the run's own agent on the
skill's body with the arguments (``$ARGUMENTS``, else after the body); a workspace's
skill is refused in a folder that is not trusted. The built-in commands:

- ``/init`` asks the build agent to write a first ``AGENTS.md`` from what the repository
  shows; the file is protected, so the user confirms it before it is written;
- ``/review`` gives the read-only review agent the uncommitted changes;
- ``/compact``, ``/clear`` and ``/model`` are not model runs: the caller compacts the
  session's conversation now, starts a new one, or answers with the session's model
  (``/model``) or switches it for the session's next runs (``/model <id>``; ``/model
  default`` goes back to the agent's or the config's). ``/model`` only switches: a prompt
  after the id is refused, so that nothing runs on a model the user has not seen named.

A command's ``model:`` (from the user's own files or a trusted folder) becomes the run's
``model``: it wins over the model the front end chose, as its ``agent:`` does.

Everything a user can get wrong (an unknown command, a missing input, an unknown agent,
nothing to review) is a ``SlashCommandError`` with a message naming it, before any model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentls.agent.config.agent_bounds import widening
from agentls.agent.config.agents import MIXED, AgentRegistry
from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.contract import RunRequest
from agentls.agent.prompts.slash_commands import (
    SlashCommand,
    SlashCommandError,
    expand,
    load_slash_commands,
    parse_invocation,
)

Action = Literal["run", "clear", "compact", "show_model", "switch_model"]

#: ``/model default``: the session's choice is dropped (the agent's or the config's model).
DEFAULT_MODEL = "default"

INIT_PROMPT = """Write a first AGENTS.md for this repository: the instructions a coding agent \
needs before it changes anything here.

Find out from the files themselves, never guess: the build, test and lint commands (Makefile, \
package.json scripts, pyproject.toml, tox.ini, noxfile.py, CI workflows, README), how the code \
is laid out (the main folders and what each holds), and conventions the code visibly follows \
(formatting tools, typing, test naming). Verify each command you write appears in those files.

Write it with write_file at the workspace root, under 60 lines, in short sections: Commands, \
Layout, Conventions. {existing}{extra}"""

REVIEW_PROMPT = """Review the uncommitted changes of this workspace below: bugs, risky \
behaviour, missing tests, unclear code. Read the surrounding code where the diff alone does not \
tell. Answer with findings ordered by severity, each naming the file and line.{extra}

{changes}"""


@dataclass
class PreparedRun:
    """What a request stands for once its command, if any, is resolved."""

    request: RunRequest
    action: Action = "run"
    #: The command run, for messages (None: an ordinary prompt).
    command: str | None = None
    #: What the user should hear (ignored parts of a prompt file, broken prompt files).
    notes: list[str] = field(default_factory=list)
    #: ``switch_model``: the session's model from now on (None: back to the default).
    model: str | None = None


async def prepare(
    request: RunRequest,
    config: AppConfig,
    *,
    root: Path,
    trusted: bool,
    known_tools: Sequence[str],
) -> PreparedRun:
    """``request`` with its command resolved; SlashCommandError when it cannot run."""
    invocation = parse_invocation(request.prompt)
    if invocation is None:
        return PreparedRun(request)
    name, arguments = invocation
    found = load_slash_commands(root, trusted=trusted, skills=config.skills.enabled)
    command = found.get(name)
    # The skills' problems are the run's catalogue's to say, once.
    notes = [p for p in found.problems if p not in found.skill_problems]
    notes = notes if command.source != "built-in" else []
    if name in ("clear", "compact"):
        action: Action = "clear" if name == "clear" else "compact"
        return PreparedRun(request, action, name)
    if name == "model":
        return _model_command(request, arguments)
    if name == "init":
        prompt = INIT_PROMPT.format(
            existing=(
                "An AGENTS.md exists already: improve it rather than start over. "
                if (root / "AGENTS.md").is_file()
                else ""
            ),
            extra=f"\n\nThe user adds: {arguments}" if arguments else "",
        )
        return PreparedRun(request.model_copy(update={"prompt": prompt}), command=name)
    if name == "review":
        from agentls.agent.prompts.git_changes import NoChangesError, uncommitted_changes

        try:
            changes = await uncommitted_changes(root)
        except NoChangesError as exc:
            raise SlashCommandError(f"/review: nothing to review: {exc}") from None
        prompt = REVIEW_PROMPT.format(
            changes=changes.render(), extra=f"\nFocus: {arguments}" if arguments else ""
        )
        review = request.model_copy(update={"prompt": prompt, "agent": "review"})
        return PreparedRun(review, command=name)
    if command.kind == "skill":
        return PreparedRun(
            _skill_request(request, command, arguments, root, trusted), command=name, notes=notes
        )
    expanded = expand(command, arguments, known_tools=known_tools, trusted=trusted)
    notes += expanded.notes
    updates: dict[str, object] = {"prompt": expanded.prompt}
    if expanded.agent:
        registry = AgentRegistry(config)
        if not registry.exists(expanded.agent):
            known = ", ".join(registry.names())
            raise SlashCommandError(
                f"/{name} ({command.path}) asks for agent {expanded.agent!r}, which does not "
                f"exist; known agents: {known}"
            )
        refusal = _refused_switch(command, expanded.agent, request.agent, registry)
        if refusal is None:
            updates["agent"] = expanded.agent
        else:
            notes.append(refusal)
    if expanded.tools is not None:
        narrowed = set(expanded.tools)
        if request.tools is not None:
            narrowed &= set(request.tools)
        updates["tools"] = sorted(narrowed)
    if expanded.model:
        updates["model"] = expanded.model
    return PreparedRun(request.model_copy(update=updates), command=name, notes=notes)


def _skill_request(
    request: RunRequest, command: SlashCommand, arguments: str, root: Path, trusted: bool
) -> RunRequest:
    """A skill's ``/name``: the run's agent with the skill's body and the arguments; a
    workspace's skill only in a trusted folder."""
    from agentls.agent.prompts.skills import skill_prompt
    from agentls.agent.prompts.skills.discovery import how_to_trust_hint

    if command.source == "workspace" and not trusted:
        raise SlashCommandError(
            f"/{command.name} is a skill of this workspace ({command.path}), which is not "
            f"trusted: a folder's skills run only once you trust it ({how_to_trust_hint(root)})"
        )
    prompt = skill_prompt(command.body, command.folder, command.name, arguments)
    return request.model_copy(update={"prompt": prompt})


def _model_command(request: RunRequest, arguments: str) -> PreparedRun:
    """``/model``: show the session's model; ``/model <id>``: switch to it."""
    words = arguments.split()
    if not words:
        return PreparedRun(request, "show_model", "model")
    if len(words) > 1:
        raise SlashCommandError(
            "/model takes one model id (/model <id>) and only switches the session's model; "
            "send your prompt after switching"
        )
    model = None if words[0] == DEFAULT_MODEL else words[0]
    return PreparedRun(request, "switch_model", "model", model=model)


def _refused_switch(
    command: SlashCommand, wanted: str, chosen: str, registry: AgentRegistry
) -> str | None:
    """Why the command may not move the run from the user's ``chosen`` agent to
    ``wanted``, or None when it may: the user's own prompt files may, a workspace's only
    to an agent no wider than ``chosen``."""
    if command.source == "user" or wanted == chosen:
        return None
    wider = widening(_acting(registry, wanted), _acting(registry, chosen))
    if not wider:
        return None
    return (
        f"/{command.name} ({command.path}) asks for agent {wanted}, which may do more than "
        f"{chosen}, the agent you chose ({'; '.join(wider)}): it runs with {chosen}; choose "
        f"{wanted} yourself to run it with that agent"
    )


def _acting(registry: AgentRegistry, name: str) -> AgentConfig:
    """The agent that acts in a run of ``name``: ``mixed`` builds after it plans."""
    return registry.get("build" if name == MIXED else name)
