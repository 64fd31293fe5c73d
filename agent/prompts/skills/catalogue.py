"""The skills' catalogue: each offered skill's name and description, for the system prompt.

It costs a line per skill until one is used: the model calls ``load_skill`` for the
body when a task matches. It is bounded by ``skills.catalogue_chars`` (the whole text,
heading included); the skills past the budget (by name, so the same ones every time)
are left out and the user is told which. It is made once per run from the files as
they are then, so every step of the run sends the same bytes (prompt caches).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentls.agent.config.models import AppConfig
from agentls.agent.prompts.skills.discovery import Skill, discover_skills, how_to_trust_hint

HEADING = (
    "## Skills\n"
    "Skills are instructions, and sometimes scripts, for particular tasks. When the task "
    "matches a skill below, call `load_skill` with its name first and follow what it says.\n"
)
#: The longest description the catalogue shows (the format's own limit).
DESCRIPTION_CHARS = 1024


@dataclass(frozen=True)
class Catalogue:
    """The text for the system prompt ("" when no skill is offered) and what the user
    should hear about it (skipped files, clashes, skills left out or withheld)."""

    text: str
    notices: tuple[str, ...] = ()


def render_catalogue(skills: Sequence[Skill], budget: int) -> tuple[str, list[str]]:
    """The catalogue of ``skills`` (in the order given) within ``budget`` characters,
    and the names of those left out."""
    if not skills:
        return "", []
    text = HEADING
    left_out: list[str] = []
    for skill in skills:
        line = f"- {skill.name}: {_shortened(skill.description)}\n"
        if left_out or len(text) + len(line) > budget:
            left_out.append(skill.name)
            continue
        text += line
    if text == HEADING:
        return "", left_out
    return text.rstrip("\n"), left_out


def _shortened(description: str) -> str:
    if len(description) <= DESCRIPTION_CHARS:
        return description
    return description[: DESCRIPTION_CHARS - 1] + "…"


def run_catalogue(root: Path, config: AppConfig, *, trusted: bool) -> Catalogue:
    """The catalogue a run of ``root`` offers its model, with its notices. It reads
    files: call it in a thread from an event loop."""
    found = discover_skills(root, trusted=trusted)
    notices = list(found.problems)
    offered = found.offered()
    budget = config.skills.catalogue_chars
    text, left_out = render_catalogue(offered, budget)
    if left_out:
        notices.append(
            f"the skills' catalogue holds {len(offered) - len(left_out)} of {len(offered)} "
            f"skills within skills.catalogue_chars ({budget}): left out "
            f"{', '.join(left_out)} (the model does not see them; /name still runs one)"
        )
    withheld = found.withheld()
    if withheld:
        names = ", ".join(s.name for s in withheld)
        notices.append(
            f"this workspace's skills ({names}) are not offered to the model: the folder is "
            f"not trusted; {how_to_trust_hint(root)} to use them"
        )
    return Catalogue(text, tuple(notices))
