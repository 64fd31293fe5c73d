"""Agent Skills: discovery, clashes and broken files, the catalogue's budget, ``load_skill``
confined to the skill's folder, ``/name`` and trust; runs composed from real parts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AppConfig
from agentls.agent.contract import RunRequest
from agentls.agent.events import AgentEvent, Notice
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.prompts.skills import (
    SkillError,
    discover_skills,
    render_catalogue,
    run_catalogue,
    skill_file_text,
)
from agentls.agent.prompts.skills.catalogue import HEADING
from agentls.agent.prompts.slash_command_runs import prepare
from agentls.agent.prompts.slash_commands import SlashCommandError, load_slash_commands
from agentls.agent.run import FrontEnd, run_agent
from agentls.agent.tools.base import RunContext, ToolContext
from agentls.agent.tools.skills import LoadSkillArgs, LoadSkillTool
from agentls.agent.workspace import DiskFileAccess


def write_skill(
    base: Path,
    folder: str,
    name: str | None = None,
    description: str = "Does a thing.",
    **extra: str,
) -> Path:
    """A skill folder under ``base`` whose SKILL.md has ``name`` (the folder's by default)."""
    where = base / folder
    where.mkdir(parents=True, exist_ok=True)
    lines = ["---", f"name: {name or where.name}", f"description: {description}"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    lines += ["---", f"# {where.name}", f"Steps of {where.name}."]
    (where / "SKILL.md").write_text("\n".join(lines) + "\n")
    return where


def test_skills_are_found_in_the_three_workspace_folders_and_the_users(
    tmp_path: Path, user_config_dir: Path
) -> None:
    ws = tmp_path / "ws"
    write_skill(ws / ".agents" / "skills", "pdf")
    write_skill(ws / ".claude" / "skills", "deploy", description="Ship\n  it.")
    write_skill(ws / ".github" / "skills", "triage")
    write_skill(user_config_dir / "skills", "standup")
    (ws / ".claude" / "skills" / "notes").mkdir()  # no SKILL.md: not a skill, no problem

    found = discover_skills(ws, trusted=True)

    assert [s.name for s in found.offered()] == ["deploy", "pdf", "standup", "triage"]
    assert found.problems == []
    assert found.skills["deploy"].description == "Ship it."
    assert found.skills["deploy"].label == ".claude/skills/deploy/SKILL.md"
    assert found.skills["standup"].label == "your skills/standup/SKILL.md"
    assert found.skills["standup"].source == "user"
    assert found.skills["pdf"].body == "# pdf\nSteps of pdf."


def test_broken_files_are_named_with_their_line_and_skipped(tmp_path: Path) -> None:
    skills = tmp_path / ".agents" / "skills"
    (skills / "yaml").mkdir(parents=True)
    (skills / "yaml" / "SKILL.md").write_text("---\nname: yaml\ndescription: [open\n---\nbody\n")
    (skills / "plain").mkdir()
    (skills / "plain" / "SKILL.md").write_text("Just text.\n")
    write_skill(skills, "nameless", name="''")
    write_skill(skills, "bad-name", name='"has space"')
    write_skill(skills, "mute", description="''")
    write_skill(skills, "good")

    found = discover_skills(tmp_path, trusted=True)

    assert list(found.skills) == ["good"]
    problems = "\n".join(found.problems)
    assert ".agents/skills/yaml/SKILL.md: its front matter is not valid YAML on line " in problems
    assert ".agents/skills/plain/SKILL.md: it has no front matter (line 1)" in problems
    assert ".agents/skills/nameless/SKILL.md: its front matter has no `name`" in problems
    assert ".agents/skills/bad-name/SKILL.md: line 2: 'has space' cannot be a command name" in (
        problems
    )
    assert ".agents/skills/mute/SKILL.md: its front matter has no `description`" in problems
    assert len(found.problems) == 5


def test_a_clash_says_which_one_wins(tmp_path: Path, user_config_dir: Path) -> None:
    ws = tmp_path / "ws"
    write_skill(ws / ".agents" / "skills", "pdf", description="agents")
    write_skill(ws / ".claude" / "skills", "pdf", description="claude")
    write_skill(user_config_dir / "skills", "pdf", description="mine")

    trusted = discover_skills(ws, trusted=True)
    assert trusted.skills["pdf"].description == "agents"
    assert trusted.problems == [
        ".claude/skills/pdf/SKILL.md: the skill pdf is also defined by "
        ".agents/skills/pdf/SKILL.md, which wins (the workspace's skill folders are read in "
        "the order .agents/skills, .claude/skills, .github/skills)",
        "your skills/pdf/SKILL.md: the skill pdf is also defined by .agents/skills/pdf/SKILL.md, "
        "which wins (a trusted workspace's skill comes before the user's own)",
    ]

    # Untrusted, the workspace's skills hide none of the user's.
    untrusted = discover_skills(ws, trusted=False)
    assert untrusted.skills["pdf"].description == "mine"
    assert [s.name for s in untrusted.offered()] == ["pdf"]
    assert (
        "this folder is not trusted, so its skills replace none of yours" in (untrusted.problems[0])
    )


def test_a_workspace_skill_folder_leading_out_of_the_workspace_is_skipped(
    tmp_path: Path,
) -> None:
    outside = write_skill(tmp_path / "elsewhere", "secret")
    skills = tmp_path / "ws" / ".agents" / "skills"
    skills.mkdir(parents=True)
    (skills / "secret").symlink_to(outside)

    found = discover_skills(tmp_path / "ws", trusted=True)

    assert found.skills == {}
    assert found.problems == [
        ".agents/skills/secret/SKILL.md: its folder leads out of the workspace; skipped"
    ]


def test_the_catalogue_keeps_to_its_budget_in_name_order(tmp_path: Path) -> None:
    for name in ("charlie", "alpha", "bravo"):
        write_skill(tmp_path / ".agents" / "skills", name, description=f"The {name} task.")
    offered = discover_skills(tmp_path, trusted=True).offered()
    line = len("- alpha: The alpha task.\n")

    whole, none_left = render_catalogue(offered, 10_000)
    assert none_left == []
    assert whole == HEADING + (
        "- alpha: The alpha task.\n- bravo: The bravo task.\n- charlie: The charlie task."
    )
    assert "call `load_skill`" in whole

    two, left_out = render_catalogue(offered, len(HEADING) + 2 * line + 1)
    assert left_out == ["charlie"]
    assert two.endswith("- bravo: The bravo task.")
    assert render_catalogue(offered, 10) == ("", ["alpha", "bravo", "charlie"])

    config = AppConfig.model_validate({"skills": {"catalogue_chars": len(HEADING) + line}})
    catalogue = run_catalogue(tmp_path, config, trusted=True)
    assert catalogue.text == HEADING + "- alpha: The alpha task."
    assert catalogue.notices == (
        "the skills' catalogue holds 1 of 3 skills within skills.catalogue_chars "
        f"({len(HEADING) + line}): left out bravo, charlie (the model does not see them; "
        "/name still runs one)",
    )


def test_an_untrusted_folders_skills_are_withheld_with_how_to_trust(
    tmp_path: Path, user_config_dir: Path
) -> None:
    write_skill(tmp_path / ".agents" / "skills", "pdf")
    write_skill(user_config_dir / "skills", "standup")

    catalogue = run_catalogue(tmp_path, AppConfig(), trusted=False)

    assert "- standup: " in catalogue.text and "pdf" not in catalogue.text
    [notice] = catalogue.notices
    assert notice.startswith("this workspace's skills (pdf) are not offered to the model")
    assert "agentls trust" in notice
    with pytest.raises(SkillError, match=r"not trusted.*agentls trust"):
        discover_skills(tmp_path, trusted=False).get("pdf")


def _context(root: Path, *, trusted: bool = True, **config: Any) -> ToolContext:
    app = AppConfig.model_validate({"workspace": {"root": str(root)}, **config})
    run = RunContext(files=DiskFileAccess(root), config=app, trusted=trusted)
    return ToolContext(run=run, tool="load_skill")


async def _load(ctx: ToolContext, **args: Any) -> tuple[bool, str]:
    result = await LoadSkillTool().run(LoadSkillArgs(**args), ctx)
    return result.success, result.output


async def test_load_skill_gives_the_body_the_folder_and_the_files(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / ".claude" / "skills", "pdf")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    (folder / "references").mkdir()
    (folder / "references" / "forms.md").write_text("# Forms\nField names.\n")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "x").write_text("hidden")

    ok, body = await _load(_context(tmp_path), name="pdf")
    assert ok, body
    assert body.startswith("# Skill pdf (.claude/skills/pdf/SKILL.md)\n")
    assert f"Folder: {folder.resolve()}\n" in body
    assert "Files:\n- references/forms.md\n- scripts/fill.py\n\n# pdf\nSteps of pdf." in body
    assert ".cache" not in body

    ok, forms = await _load(_context(tmp_path), name="pdf", file="references/forms.md")
    assert (ok, forms) == (True, "# Forms\nField names.\n")


async def test_load_skill_refuses_what_leaves_the_folder(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / ".agents" / "skills", "pdf")
    (tmp_path / "secret.txt").write_text("key")
    (folder / "link.txt").symlink_to(tmp_path / "secret.txt")
    ctx = _context(tmp_path)

    ok, told = await _load(ctx, name="pdf", file="link.txt")
    assert not ok
    assert "'link.txt' of the skill pdf leads out of the skill's folder (it resolves to " in told
    assert "refused" in told
    ok, told = await _load(ctx, name="pdf", file="../../../secret.txt")
    assert not ok and "leads out of the skill's folder" in told
    ok, told = await _load(ctx, name="pdf", file=str(tmp_path / "secret.txt"))
    assert not ok and "relative to the skill's folder" in told
    ok, listing = await _load(ctx, name="pdf")
    assert ok and "link.txt" not in listing
    ok, told = await _load(ctx, name="pdf", file="missing.md")
    assert not ok and "has no file 'missing.md'" in told
    with pytest.raises(SkillError, match="leads out"):
        skill_file_text(discover_skills(tmp_path, trusted=True).get("pdf"), "link.txt")


async def test_load_skill_refuses_an_untrusted_workspaces_skill_and_unknown_names(
    tmp_path: Path, user_config_dir: Path
) -> None:
    write_skill(tmp_path / ".agents" / "skills", "pdf")
    write_skill(user_config_dir / "skills", "standup")
    untrusted = _context(tmp_path, trusted=False)

    ok, told = await _load(untrusted, name="pdf")
    assert not ok and "not trusted" in told and "agentls trust" in told
    ok, body = await _load(untrusted, name="standup")
    assert ok and "Steps of standup." in body
    ok, told = await _load(untrusted, name="nope")
    assert not ok and told == "there is no skill 'nope'; the skills here are: standup"
    ok, told = await _load(_context(tmp_path, skills={"enabled": False}), name="standup")
    assert not ok and "skills.enabled: false" in told


def test_skills_are_commands_after_built_ins_and_prompt_files(
    tmp_path: Path, user_config_dir: Path
) -> None:
    write_skill(tmp_path / ".agents" / "skills", "pdf", **{"argument-hint": "<file>"})
    write_skill(tmp_path / ".agents" / "skills", "review")
    write_skill(tmp_path / ".agents" / "skills", "fix")
    prompts = tmp_path / ".github" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "fix.prompt.md").write_text("Fix it.\n")

    found = load_slash_commands(tmp_path, user_dir=user_config_dir)

    pdf = found.get("pdf")
    assert (pdf.kind, pdf.source, pdf.path, pdf.hint) == (
        "skill",
        "workspace",
        ".agents/skills/pdf/SKILL.md",
        "<file>",
    )
    assert found.get("review").source == "built-in"
    assert found.get("fix").kind == "prompt"
    assert found.problems == [
        ".agents/skills/fix/SKILL.md: /fix stays .github/prompts/fix.prompt.md's (a built-in "
        "or prompt file wins over a skill); the model can still load the skill",
        ".agents/skills/review/SKILL.md: /review stays a built-in command's (a built-in or "
        "prompt file wins over a skill); the model can still load the skill",
    ]
    assert (
        "pdf" not in load_slash_commands(tmp_path, user_dir=user_config_dir, skills=False).commands
    )


async def test_a_skill_command_runs_its_body_with_the_arguments_only_when_trusted(
    tmp_path: Path, user_config_dir: Path
) -> None:
    folder = write_skill(tmp_path / ".agents" / "skills", "pdf")
    (folder / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: PDFs.\n---\nFill the form $ARGUMENTS.\n"
    )
    write_skill(user_config_dir / "skills", "standup")
    request = RunRequest(prompt="/pdf tax.pdf", agent="plan")

    prepared = await prepare(request, AppConfig(), root=tmp_path, trusted=True, known_tools=[])
    assert prepared.command == "pdf"
    assert prepared.request.agent == "plan"
    assert prepared.request.prompt.startswith("Fill the form tax.pdf.\n\n(This is the skill pdf.")
    assert str(folder.resolve()) in prepared.request.prompt

    with pytest.raises(SlashCommandError, match=r"/pdf is a skill of this workspace .*not trusted"):
        await prepare(request, AppConfig(), root=tmp_path, trusted=False, known_tools=[])
    own = await prepare(
        RunRequest(prompt="/standup today"),
        AppConfig(),
        root=tmp_path,
        trusted=False,
        known_tools=[],
    )
    assert own.request.prompt.startswith("# standup\nSteps of standup.\n\ntoday\n\n")


def _config(ws: Path, server: ScriptedModelServer, model: str, **extra: Any) -> AppConfig:
    data = {
        "workspace": {"root": str(ws)},
        "llm": {"model": f"openai/{model}", "api_base": server.api_base},
        **extra,
    }
    return AppConfig.model_validate(data)


async def _run(
    ws: Path, config: AppConfig, *, trusted: bool, events: list[AgentEvent], **request: Any
) -> Any:
    front_end = FrontEnd(
        DiskFileAccess(ws), DenyingApprover("test"), observer=events.append, trusted=trusted
    )
    return await run_agent(
        RunRequest(**request), front_end, config=config, llm=LiteLLMAdapter(config.llm)
    )


async def test_a_run_catalogues_the_skills_and_loads_one_on_demand(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    write_skill(tmp_path / ".agents" / "skills", "pdf", description="Fill PDF forms.")
    scripted.add("sk", tool_call("load_skill", {"name": "pdf"}), text("done"))
    events: list[AgentEvent] = []

    outcome = await _run(
        tmp_path, _config(tmp_path, scripted, "sk"), trusted=True, events=events, prompt="fill it"
    )

    assert outcome.state.status == "success"
    first, second = scripted.requests_for("sk")
    system = first.messages[0]["content"]
    assert system.endswith(HEADING + "- pdf: Fill PDF forms.")
    assert second.messages[0]["content"] == system  # the same bytes at every step
    assert "load_skill" in {t["function"]["name"] for t in first.body["tools"]}
    assert "Steps of pdf." not in str(first.messages)
    assert "Steps of pdf." in str(second.messages[-1])
    assert not [e for e in events if isinstance(e, Notice) and e.level == "warning"]


async def test_no_catalogue_for_an_agent_without_load_skill_nor_when_turned_off(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    write_skill(tmp_path / ".agents" / "skills", "pdf", description="Fill PDF forms.")
    scripted.add("narrow", text("a"))
    scripted.add("off", text("b"))
    narrow = _config(
        tmp_path,
        scripted,
        "narrow",
        agents={"reader": {"system_prompt": "Read.", "allowed_tools": ["read_file"]}},
    )
    await _run(tmp_path, narrow, trusted=True, events=[], prompt="x", agent="reader")
    await _run(
        tmp_path,
        _config(tmp_path, scripted, "off", skills={"enabled": False}),
        trusted=True,
        events=[],
        prompt="x",
    )
    assert "## Skills" not in scripted.requests_for("narrow")[0].messages[0]["content"]
    assert "## Skills" not in scripted.requests_for("off")[0].messages[0]["content"]


async def test_an_untrusted_run_offers_only_the_users_skills_and_says_why(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    write_skill(tmp_path / ".agents" / "skills", "pdf", description="Fill PDF forms.")
    write_skill(user_config_dir / "skills", "standup", description="Write my standup.")
    scripted.add("un", tool_call("load_skill", {"name": "pdf"}), text("ok"))
    events: list[AgentEvent] = []

    await _run(
        tmp_path, _config(tmp_path, scripted, "un"), trusted=False, events=events, prompt="x"
    )

    first, second = scripted.requests_for("un")
    system = first.messages[0]["content"]
    assert system.endswith(HEADING + "- standup: Write my standup.")
    assert "not trusted" in str(second.messages[-1])
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert any(w.startswith("this workspace's skills (pdf) are not offered") for w in warnings)
