"""Finding the skills of a workspace and of the user: folders with a ``SKILL.md``.

A skill is a folder whose ``SKILL.md`` starts with YAML front matter naming it
(``name``, which must be a valid command name) and saying when it applies
(``description``); the Markdown after it is the skill's body, the instructions the model
reads when it loads the skill. Anything else in the folder (``scripts/``,
``references/``, ``assets/``) is the skill's files.

Where they are found, in the order that decides a name clash (the first wins):

1. the workspace's ``.agents/skills/*/SKILL.md``, ``.claude/skills/*/SKILL.md`` and
   ``.github/skills/*/SKILL.md``, in that order;
2. the user's own, ``skills/*/SKILL.md`` in the user config directory.

A workspace's skill wins over the user's of the same name (the repository knows its own
tasks best) — but only in a trusted folder: in an untrusted one the workspace's skills
are not offered, so they hide nothing and the user's own skill of that name stays.

A file that cannot be used (broken front matter, no name or description, a name that is
not a command name, a workspace skill folder that leads out of the workspace) is skipped
with a problem naming the file and its line; a clash is a problem saying which one wins.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentls.agent.config.trust import trust_command
from agentls.agent.config.userdirs import is_within, user_config_dir
from agentls.agent.errors import AgentError
from agentls.agent.prompts.front_matter import FrontMatterError, split_front_matter
from agentls.agent.prompts.instructions import read_instruction_file

SkillSource = Literal["user", "workspace"]

SKILL_FILE = "SKILL.md"
#: The workspace's skill folders, in the order a name clash is decided.
WORKSPACE_FOLDERS = (".agents/skills", ".claude/skills", ".github/skills")
#: The user's skill folder, in the user config directory.
USER_FOLDER = "skills"

#: What a command name may be: a skill runs as ``/name``.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class SkillError(AgentError):
    """A skill that does not exist, is not offered here, or a file it cannot give."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    source: SkillSource
    #: The skill's folder, symlinks resolved: its files are confined to it.
    folder: Path
    #: How messages name its SKILL.md (workspace-relative, or "your skills/...").
    label: str
    #: The instructions after the front matter.
    body: str
    argument_hint: str = ""


def how_to_trust_hint(root: Path) -> str:
    """The hint on trusting ``root`` where the front end's own wording is not at hand."""
    return f"run `{trust_command(root)}` (or grant the folder Workspace Trust in your editor)"


@dataclass
class SkillSet:
    """The skills found for a workspace, and the problems of the files skipped."""

    root: Path
    trusted: bool
    #: Every usable skill by name (the winner of a clash), offered or not.
    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def is_offered(self, skill: Skill) -> bool:
        """The user's skills always; a workspace's only once the folder is trusted."""
        return skill.source == "user" or self.trusted

    def offered(self) -> list[Skill]:
        """The skills the model may load, by name."""
        return [s for _, s in sorted(self.skills.items()) if self.is_offered(s)]

    def withheld(self) -> list[Skill]:
        """The workspace's skills not offered because the folder is not trusted."""
        return [s for _, s in sorted(self.skills.items()) if not self.is_offered(s)]

    def get(self, name: str) -> Skill:
        """The offered skill ``name``; SkillError saying why not (unknown, untrusted)."""
        skill = self.skills.get(name)
        if skill is None:
            known = ", ".join(s.name for s in self.offered()) or "none"
            raise SkillError(f"there is no skill {name!r}; the skills here are: {known}")
        if not self.is_offered(skill):
            raise SkillError(untrusted_message(skill, self.root))
        return skill


def untrusted_message(skill: Skill, root: Path) -> str:
    return (
        f"the skill {skill.name} ({skill.label}) belongs to this workspace, which is not "
        f"trusted: a folder's skills are used only once you trust it ({how_to_trust_hint(root)})"
    )


def discover_skills(root: Path, *, trusted: bool, user_dir: Path | None = None) -> SkillSet:
    """The skills of ``root`` and of the user (see the module's doc for the order)."""
    found = SkillSet(root=root, trusted=trusted)
    user = user_dir if user_dir is not None else user_config_dir()
    workspace = [
        skill
        for folder in WORKSPACE_FOLDERS
        for skill in _skills_in(root / folder, "workspace", root, found.problems)
    ]
    own = _skills_in(user / USER_FOLDER, "user", user, found.problems)
    ordered = [*workspace, *own] if trusted else [*own, *workspace]
    for skill in ordered:
        winner = found.skills.get(skill.name)
        if winner is None:
            found.skills[skill.name] = skill
            continue
        found.problems.append(
            f"{skill.label}: the skill {skill.name} is also defined by {winner.label}, which "
            f"wins ({_why(winner, skill)})"
        )
    return found


def _why(winner: Skill, loser: Skill) -> str:
    if winner.source == "user" and loser.source == "workspace":
        return "this folder is not trusted, so its skills replace none of yours"
    if winner.source == "workspace" and loser.source == "user":
        return "a trusted workspace's skill comes before the user's own"
    if winner.folder.parent != loser.folder.parent:
        return "the workspace's skill folders are read in the order " + ", ".join(WORKSPACE_FOLDERS)
    return "the first by folder name wins"


def _skills_in(folder: Path, source: SkillSource, base: Path, problems: list[str]) -> list[Skill]:
    """The skills of one skills folder, by folder name."""
    if not folder.is_dir():
        return []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        problems.append(f"{_label(folder, base, source)} could not be read: {exc.strerror}")
        return []
    skills = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if not path.is_dir() or not (path / SKILL_FILE).is_file():
            continue
        label = _label(path / SKILL_FILE, base, source)
        if source == "workspace" and not is_within(path, base):
            problems.append(f"{label}: its folder leads out of the workspace; skipped")
            continue
        skill = parse_skill(path, label, source, problems)
        if skill is not None:
            skills.append(skill)
    return skills


def _label(path: Path, base: Path, source: SkillSource) -> str:
    try:
        relative = path.relative_to(base).as_posix()
    except ValueError:
        relative = path.as_posix()
    return f"your {relative}" if source == "user" else relative


def parse_skill(folder: Path, label: str, source: SkillSource, problems: list[str]) -> Skill | None:
    """The skill of ``folder``, or None with a problem naming its file and line."""
    text = read_instruction_file(folder / SKILL_FILE, label, problems)
    if text is None:
        return None
    try:
        meta, body = split_front_matter(text)
    except FrontMatterError as exc:
        problems.append(f"{label}: {exc}; skipped")
        return None
    if not meta:
        problems.append(
            f"{label}: it has no front matter (line 1): a skill starts with ---, then "
            "`name:` and `description:`, then ---; skipped"
        )
        return None
    name = _text(meta.get("name"))
    description = " ".join(_text(meta.get("description")).split())
    if not name:
        problems.append(f"{label}: its front matter has no `name` (line 2); skipped")
        return None
    if not NAME.match(name):
        problems.append(
            f"{label}: line {_key_line(text, 'name')}: {name!r} cannot be a command name "
            "(letters, digits, - _ .); skipped"
        )
        return None
    if not description:
        problems.append(
            f"{label}: its front matter has no `description` (line 2): the model needs it "
            "to know when the skill applies; skipped"
        )
        return None
    return Skill(
        name=name,
        description=description,
        source=source,
        folder=Path(os.path.realpath(folder)),
        label=label,
        body=body.strip(),
        argument_hint=_text(meta.get("argument-hint")),
    )


def _text(value: Any) -> str:
    return str(value).strip() if value is not None else ""


def _key_line(text: str, key: str) -> int:
    """The line of ``key:`` in the front matter (2 when it cannot be told)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*:")
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.strip() == "---":
            break
        if pattern.match(line):
            return number
    return 2
