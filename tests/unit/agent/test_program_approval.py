"""One question for every program a workspace declares: what ``ProgramApprovals`` stores,
what it remembers, and what it asks."""

from __future__ import annotations

import asyncio
from pathlib import Path

from program_answers import ProgramAnswers
from program_answers import a_program as program

from agentls.agent.config.trust import TrustStore
from agentls.agent.policy.approval import BaseApprover
from agentls.agent.policy.program_approval import ProgramApprovals, ProgramToApprove, WaitingProgram


def waiting(item: ProgramToApprove, now: str | None = None) -> WaitingProgram:
    return WaitingProgram(item, lambda: item.digest if now is None else now)


async def test_an_approval_is_stored_under_its_digest_and_not_asked_again(
    tmp_path: Path, user_config_dir: Path
) -> None:
    answers = ProgramAnswers(then=True)
    approvals = ProgramApprovals()
    assert await approvals.ask(waiting(program(tmp_path)), answers) == "approved"
    assert TrustStore().approved_digest(tmp_path, "hooks", ".agentls/hooks.json") == "d1"
    assert await ProgramApprovals().ask(waiting(program(tmp_path)), answers) == "approved"
    assert len(answers.asked) == 1
    # Each kind is stored where its own commands store it (`agentls mcp approve`).
    mcp = program(tmp_path, kind="mcp_server", name="srv", source=".mcp.json")
    assert await approvals.ask(waiting(mcp), answers) == "approved"
    assert TrustStore().approved_digest(tmp_path, "mcp", "srv") == "d1"


async def test_a_refusal_holds_for_that_definition_while_the_approvals_live(
    tmp_path: Path, user_config_dir: Path
) -> None:
    answers = ProgramAnswers(False, then=None)
    approvals = ProgramApprovals()
    assert await approvals.ask(waiting(program(tmp_path)), answers) == "refused"
    assert await approvals.ask(waiting(program(tmp_path)), answers) == "refused"
    assert len(answers.asked) == 1 and approvals.refused(program(tmp_path))
    # Another definition is another question; so is another folder engine.
    assert await approvals.ask(waiting(program(tmp_path, "d2")), answers) == "unanswered"
    assert await ProgramApprovals().ask(waiting(program(tmp_path)), answers) == "unanswered"
    assert len(answers.asked) == 3
    assert TrustStore().approved_digest(tmp_path, "hooks", ".agentls/hooks.json") is None


async def test_no_answer_is_no_decision_and_nobody_to_ask_asks_nothing(
    tmp_path: Path, user_config_dir: Path
) -> None:
    approvals = ProgramApprovals()
    assert await approvals.ask(waiting(program(tmp_path)), None) == "unanswered"
    # The default approver (a front end that cannot ask) leaves it off, unremembered.
    assert await approvals.ask(waiting(program(tmp_path)), BaseApprover()) == "unanswered"
    assert not approvals.refused(program(tmp_path))


async def test_a_program_that_changed_while_asked_is_not_stored(
    tmp_path: Path, user_config_dir: Path
) -> None:
    approvals = ProgramApprovals()
    verdict = await approvals.ask(waiting(program(tmp_path), now="d2"), ProgramAnswers(True))
    assert verdict == "changed"
    assert TrustStore().approved_digest(tmp_path, "hooks", ".agentls/hooks.json") is None


async def test_two_runs_starting_together_ask_once(tmp_path: Path, user_config_dir: Path) -> None:
    release = asyncio.Event()

    class Slow(ProgramAnswers):
        async def approve_program(self, program: ProgramToApprove) -> bool | None:
            answer = await super().approve_program(program)
            await release.wait()
            return answer

    slow = Slow(then=True)
    approvals = ProgramApprovals()
    both = asyncio.gather(
        approvals.ask(waiting(program(tmp_path)), slow),
        approvals.ask(waiting(program(tmp_path)), slow),
    )
    await asyncio.sleep(0)
    release.set()
    assert await both == ["approved", "approved"]
    assert len(slow.asked) == 1


def test_the_plain_question_shows_where_what_and_why(tmp_path: Path) -> None:
    lines = program(tmp_path).question().splitlines()
    assert lines == [
        "Declared in .agentls/hooks.json:",
        "  PreToolUse: ./guard.sh",
        "Each runs as a program with your permissions.",
        "Allow the hooks of .agentls/hooks.json to run?",
    ]
