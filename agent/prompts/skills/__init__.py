"""Agent Skills: folders with a ``SKILL.md`` (the open format of agentskills.io) that cost
the model a line of the system prompt until it loads one.

``discovery`` finds them (the workspace's ``.agents/skills``, ``.claude/skills``,
``.github/skills``, then the user's own) and decides clashes and trust; ``catalogue``
makes the bounded list of names and descriptions a run's system prompt holds;
``files`` is what the ``load_skill`` tool returns (the body, the folder and its files,
or one file's text, confined to the folder). A skill also runs as ``/name args``
(``agent.prompts.slash_commands`` lists it; ``skill_prompt`` is the prompt it runs).
"""

from __future__ import annotations

from agentls.agent.prompts.skills.catalogue import Catalogue, render_catalogue, run_catalogue
from agentls.agent.prompts.skills.discovery import (
    Skill,
    SkillError,
    SkillSet,
    discover_skills,
    untrusted_message,
)
from agentls.agent.prompts.skills.files import loaded_skill, skill_file_text


def skill_prompt(body: str, folder: str, name: str, arguments: str) -> str:
    """The prompt ``/name arguments`` runs: the skill's body, ``$ARGUMENTS`` replaced by
    the arguments (else they follow the body), and where its files are."""
    prompt = body.replace("$ARGUMENTS", arguments) if "$ARGUMENTS" in body else body
    if arguments and "$ARGUMENTS" not in body:
        prompt = f"{prompt.rstrip()}\n\n{arguments}"
    return (
        f"{prompt.strip()}\n\n(This is the skill {name}. Its folder is {folder}: run its "
        f'scripts from there; load_skill(name="{name}", file="<path>") reads its other files.)'
    )


__all__ = [
    "Catalogue",
    "Skill",
    "SkillError",
    "SkillSet",
    "discover_skills",
    "loaded_skill",
    "render_catalogue",
    "run_catalogue",
    "skill_file_text",
    "skill_prompt",
    "untrusted_message",
]
