"""``load_skill``: the model loads a skill the system prompt's catalogue names.

Read-only: it reads the skill's ``SKILL.md`` and its files, never anything outside the
skill's folder (``agent.prompts.skills.files``). The skills are found afresh at each
call with the run's trust (``RunContext.trusted``), so a workspace's skill is refused in
a folder that is not trusted, with how to trust it. Scripts a skill ships are not run
here: the model runs them with ``execute_command``, under the run's rules, sandbox and
approvals.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agentls.agent.prompts.skills import (
    SkillError,
    discover_skills,
    loaded_skill,
    skill_file_text,
)
from agentls.agent.tools.base import Tool, ToolContext, ToolResult


class LoadSkillArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, description="The skill's name, as the skills list gives it.")
    file: str | None = Field(
        None,
        description="One of the skill's files (a path relative to its folder, as listed "
        "when the skill was loaded): its text instead of the skill's instructions.",
    )


class LoadSkillTool(Tool[LoadSkillArgs], name="load_skill"):
    """Load a skill from the system prompt's skills list: its instructions, its folder and
    the list of its files. With `file`, the text of one of those files instead. Load a skill
    before doing a task it applies to, then follow it."""

    async def run(self, args: LoadSkillArgs, ctx: ToolContext) -> ToolResult:
        run = ctx.run
        if not run.config.skills.enabled:
            return ToolResult.fail("Skills are turned off here (skills.enabled: false).")
        root = Path(run.files.root)
        try:
            return ToolResult.ok(
                await asyncio.to_thread(_load, root, run.trusted, args.name, args.file)
            )
        except SkillError as exc:
            return ToolResult.fail(str(exc))


def _load(root: Path, trusted: bool, name: str, file: str | None) -> str:
    skill = discover_skills(root, trusted=trusted).get(name)
    return loaded_skill(skill) if file is None else skill_file_text(skill, file)


__all__ = ["LoadSkillTool"]
