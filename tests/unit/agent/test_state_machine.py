"""The run state machine: legal moves reported, illegal ones refused."""

from __future__ import annotations

import pytest

from agentls.agent.events import AgentEvent, RunState, StatusChanged
from agentls.agent.state_machine import IllegalTransition, RunStateMachine

S = RunState


def test_a_run_with_an_approval_reports_each_state_once() -> None:
    seen: list[AgentEvent] = []
    machine = RunStateMachine(seen.append)
    path = [
        S.PREPARING,
        S.MODEL_RUNNING,
        S.TOOL_RUNNING,
        S.AWAITING_HUMAN,
        S.TOOL_RUNNING,
        S.MODEL_RUNNING,
        S.COMPLETED,
    ]
    for state in path:
        machine.to(state)
    assert [e.state for e in seen if isinstance(e, StatusChanged)] == path
    assert machine.finished


@pytest.mark.parametrize(
    ("path", "bad"),
    [
        ((), S.MODEL_RUNNING),  # idle must prepare first
        ((S.PREPARING,), S.AWAITING_HUMAN),  # only a tool waits for a human
        ((S.PREPARING, S.MODEL_RUNNING, S.COMPLETED), S.MODEL_RUNNING),  # terminal is final
        ((S.PREPARING, S.MODEL_RUNNING, S.ABORTED), S.FAILED),
    ],
)
def test_illegal_transitions_are_refused(path: tuple[RunState, ...], bad: RunState) -> None:
    machine = RunStateMachine()
    for state in path:
        machine.to(state)
    with pytest.raises(IllegalTransition):
        machine.to(bad)
    assert machine.state == (path[-1] if path else S.IDLE)


def test_a_denied_approval_goes_back_to_the_model() -> None:
    machine = RunStateMachine()
    for state in (S.PREPARING, S.MODEL_RUNNING, S.TOOL_RUNNING, S.AWAITING_HUMAN):
        machine.to(state)
    machine.to(S.MODEL_RUNNING)  # awaiting_human -> model_running when denied
    assert machine.history[-2:] == [S.AWAITING_HUMAN, S.MODEL_RUNNING]
