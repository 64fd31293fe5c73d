"""Commands: reusable prompts run as ``/name args``.

Where they come from (a later source's command replaces an earlier one of the same name,
with a note):

1. prompt files in the user config directory: ``prompts/*.prompt.md`` and
   ``commands/*.md``: the user's own;
2. the workspace's ``.github/prompts/*.prompt.md`` (VS Code's prompt files) and
   ``.claude/commands/*.md`` (Claude Code's commands);
3. the skills (``agent.prompts.skills``): each runs as ``/name args``, its body the
   prompt. A built-in command or a prompt file of the same name wins over a skill (a
   note says so; the model can still load the skill). An untrusted workspace's skills
   are listed but refused when run.

A prompt file is Markdown with optional YAML front matter: ``description``,
``argument-hint``, ``agent`` (or ``mode``), ``model``, ``tools``. Its body may use
``$ARGUMENTS`` (everything after the name), ``$1``...``$9`` (the words of it) and
``${input:name}`` / ``${input:name:placeholder}`` (given as ``name=value`` after the
command's name). The built-in commands (``/init``, ``/review``, ``/compact``,
``/clear``, ``/model``) cannot be replaced.

A command never widens what the chosen agent may do: its ``tools`` can only narrow the
agent's tools, and its ``model`` is obeyed only from the user's own files or a trusted
folder (a repository's prompt file must not choose what the user pays for). Nothing in a
prompt file changes approvals, the model endpoint or the sandbox.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentls.agent.config.userdirs import user_config_dir
from agentls.agent.errors import AgentError
from agentls.agent.prompts.front_matter import FrontMatterError, split_front_matter
from agentls.agent.prompts.instructions import read_instruction_file

Source = Literal["built-in", "user", "workspace"]
#: A prompt file (or a built-in) or a skill.
Kind = Literal["prompt", "skill"]

#: Where prompt files are, per source: (folder, file suffix).
USER_FOLDERS = (("prompts", ".prompt.md"), ("commands", ".md"))
WORKSPACE_FOLDERS = ((".github/prompts", ".prompt.md"), (".claude/commands", ".md"))

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_INPUT = re.compile(r"\$\{input:([A-Za-z0-9_-]+)(?::([^}]*))?\}")
_POSITIONAL = re.compile(r"\$([1-9])")
_KNOWN_KEYS = {"description", "argument-hint", "agent", "mode", "model", "tools", "name"}
#: Claude Code's names for its front matter keys, read as ours.
_ALIASES = {"allowed-tools": "tools"}


class SlashCommandError(AgentError):
    """A command that does not exist, or that cannot run with the arguments given."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    source: Source
    #: The file it comes from (workspace-relative, or in the user config directory).
    path: str = ""
    argument_hint: str = ""
    body: str = ""
    agent: str | None = None
    model: str | None = None
    #: Tools it narrows the agent to; None: the agent's own.
    tools: tuple[str, ...] | None = None
    #: ``${input:...}`` names, in order, with their placeholders.
    inputs: tuple[tuple[str, str], ...] = ()
    kind: Kind = "prompt"
    #: A skill's folder (its scripts and files).
    folder: str = ""

    @property
    def hint(self) -> str:
        """What to type after the name, for pickers."""
        if self.argument_hint:
            return self.argument_hint
        named = " ".join(f"{name}=<{placeholder or name}>" for name, placeholder in self.inputs)
        return named


BUILT_IN = (
    SlashCommand(
        "init",
        "Write a first AGENTS.md from what the repository shows (asks before writing).",
        "built-in",
    ),
    SlashCommand(
        "review", "Review the uncommitted changes with the read-only review agent.", "built-in"
    ),
    SlashCommand(
        "compact", "Compact the conversation now: older steps become a summary.", "built-in"
    ),
    SlashCommand("clear", "Start a new conversation.", "built-in"),
    SlashCommand(
        "model",
        "Show the session's model, or switch it for the next requests.",
        "built-in",
        argument_hint="[<model id> | default]",
    ),
)


@dataclass
class SlashCommandSet:
    """The commands of a workspace and what the user should hear about broken files."""

    commands: dict[str, SlashCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: Those of ``problems`` about skills (a run's catalogue says them already).
    skill_problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> SlashCommand:
        try:
            return self.commands[name]
        except KeyError:
            known = ", ".join(f"/{n}" for n in sorted(self.commands)) or "none"
            raise SlashCommandError(
                f"unknown command /{name}; the commands here are: {known}"
            ) from None

    def listed(self) -> list[SlashCommand]:
        return sorted(self.commands.values(), key=lambda c: c.name)


def load_slash_commands(
    root: Path, *, user_dir: Path | None = None, trusted: bool = True, skills: bool = True
) -> SlashCommandSet:
    """Every command available in ``root``: built-ins, the user's, the workspace's, and
    (``skills``) the skills; ``trusted`` decides which skill wins a clash."""
    found = SlashCommandSet({command.name: command for command in BUILT_IN})
    user = user_dir if user_dir is not None else user_config_dir()
    for folder, suffix in USER_FOLDERS:
        _load_folder(found, user / folder, suffix, "user", user)
    for folder, suffix in WORKSPACE_FOLDERS:
        _load_folder(found, root / folder, suffix, "workspace", root)
    if skills:
        _add_skills(found, root, user, trusted)
    return found


def _add_skills(found: SlashCommandSet, root: Path, user: Path, trusted: bool) -> None:
    from agentls.agent.prompts.skills import discover_skills

    skills = discover_skills(root, trusted=trusted, user_dir=user)
    found.skill_problems += skills.problems
    for skill in skills.skills.values():
        existing = found.commands.get(skill.name)
        if existing is not None:
            owner = "a built-in command" if existing.source == "built-in" else existing.path
            found.skill_problems.append(
                f"{skill.label}: /{skill.name} stays {owner}'s (a built-in or prompt file "
                "wins over a skill); the model can still load the skill"
            )
            continue
        found.commands[skill.name] = SlashCommand(
            name=skill.name,
            description=skill.description,
            source=skill.source,
            path=skill.label,
            argument_hint=skill.argument_hint,
            body=skill.body,
            kind="skill",
            folder=str(skill.folder),
        )
    found.problems += found.skill_problems


def _load_folder(
    found: SlashCommandSet, folder: Path, suffix: str, source: Source, base: Path
) -> None:
    if not folder.is_dir():
        return
    for path in sorted(folder.glob(f"*{suffix}")):
        if not path.is_file():
            continue
        label = path.relative_to(base).as_posix()
        if source == "user":
            label = f"your {label}"
        command = parse_prompt_file(path, label, source, suffix, found.problems)
        if command is None:
            continue
        existing = found.commands.get(command.name)
        if existing is not None and existing.source == "built-in":
            found.problems.append(f"{label}: /{command.name} is a built-in command; not replaced")
            continue
        if existing is not None:
            found.problems.append(f"{label} replaces /{command.name} of {existing.path}")
        found.commands[command.name] = command


def parse_prompt_file(
    path: Path, label: str, source: Source, suffix: str, problems: list[str]
) -> SlashCommand | None:
    """One prompt file as a command, or None with a problem naming the file."""
    name = path.name[: -len(suffix)]
    if not NAME.match(name):
        problems.append(f"{label}: {name!r} cannot be a command name (letters, digits, - _ .)")
        return None
    text = read_instruction_file(path, label, problems)
    if text is None:
        return None
    try:
        meta, body = split_front_matter(text)
    except FrontMatterError as exc:
        problems.append(f"{label}: {exc}")
        return None
    meta = {_ALIASES.get(key, key): value for key, value in meta.items()}
    unknown = sorted(set(meta) - _KNOWN_KEYS)
    if unknown:
        problems.append(f"{label}: ignoring front matter key(s) {', '.join(unknown)}")
    tools = meta.get("tools")
    if isinstance(tools, str):
        tools = [t.strip() for t in re.split(r"[,\s]+", tools) if t.strip()]
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, str) for t in tools)
    ):
        problems.append(f"{label}: `tools` must be a list of tool names; ignored")
        tools = None
    inputs: dict[str, str] = {}
    for match in _INPUT.finditer(body):
        inputs.setdefault(match.group(1), match.group(2) or "")
    return SlashCommand(
        name=name,
        description=_text(meta.get("description")) or _first_line(body),
        source=source,
        path=label,
        argument_hint=_text(meta.get("argument-hint")),
        body=body,
        agent=_text(meta.get("agent") or meta.get("mode")) or None,
        model=_text(meta.get("model")) or None,
        tools=tuple(tools) if tools is not None else None,
        inputs=tuple(inputs.items()),
    )


def _text(value: Any) -> str:
    return str(value).strip() if value is not None else ""


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:120]
    return ""


def parse_invocation(prompt: str) -> tuple[str, str] | None:
    """``("fix-tests", "auth")`` for ``/fix-tests auth``; None for an ordinary prompt."""
    text = prompt.strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    head, newline, more = head.partition("\n")
    if not head or not NAME.match(head):
        return None
    arguments = (more + (" " + rest if rest else "")) if newline else rest
    return head, arguments.strip()


@dataclass(frozen=True)
class Expanded:
    """A prompt file's command, ready to run."""

    prompt: str
    agent: str | None
    model: str | None
    tools: tuple[str, ...] | None
    #: What the user should hear (an ignored model, unknown tools).
    notes: tuple[str, ...] = ()


def expand(
    command: SlashCommand, arguments: str, *, known_tools: Sequence[str], trusted: bool
) -> Expanded:
    """The prompt a file command runs with ``arguments``; SlashCommandError for missing inputs."""
    words, values = _split_arguments(arguments, {name for name, _ in command.inputs})
    missing = [name for name, _ in command.inputs if name not in values]
    if missing:
        wanted = " ".join(f"{name}=..." for name in missing)
        raise SlashCommandError(
            f"/{command.name} ({command.path}) needs {', '.join(missing)}: "
            f"run `/{command.name} {wanted}`"
        )
    free = " ".join(words)
    body = _INPUT.sub(lambda m: values[m.group(1)], command.body)
    body = body.replace("$ARGUMENTS", free)
    body = _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", body
    )
    if free and "$ARGUMENTS" not in command.body and not _POSITIONAL.search(command.body):
        body = f"{body.rstrip()}\n\n{free}"
    notes: list[str] = []
    tools = command.tools
    if tools is not None:
        unknown = [t for t in tools if t not in known_tools]
        if unknown:
            notes.append(
                f"{command.path}: unknown tool(s) {', '.join(unknown)} left out of its `tools`"
            )
        tools = tuple(t for t in tools if t in known_tools)
    model = command.model
    if model and command.source == "workspace" and not trusted:
        notes.append(f"{command.path}: its model {model} is ignored: this folder is not trusted")
        model = None
    return Expanded(body.strip(), command.agent, model, tools, tuple(notes))


def _word(words: list[str], number: int) -> str:
    return words[number - 1] if number <= len(words) else ""


def _split_arguments(arguments: str, inputs: set[str]) -> tuple[list[str], dict[str, str]]:
    """Free words, and ``name=value`` pairs for the command's ``${input:name}``s (any other
    ``a=b`` is a free word)."""
    try:
        tokens = shlex.split(arguments)
    except ValueError:
        tokens = arguments.split()
    words: list[str] = []
    values: dict[str, str] = {}
    for token in tokens:
        name, sep, value = token.partition("=")
        if sep and name in inputs:
            values[name] = value
        else:
            words.append(token)
    return words, values
