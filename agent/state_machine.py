"""The run's state machine (``RunStateMachine``): moves between the ``events.RunState``
values, checks every transition and reports each change to the observer."""

from __future__ import annotations

from agentls.agent.events import Observer, RunState, StatusChanged, null_observer

S = RunState

TRANSITIONS: dict[RunState, frozenset[RunState]] = {
    S.IDLE: frozenset({S.PREPARING}),
    S.PREPARING: frozenset({S.MODEL_RUNNING, S.FAILED, S.ABORTED, S.COMPLETED}),
    S.MODEL_RUNNING: frozenset({S.MODEL_RUNNING, S.TOOL_RUNNING, S.COMPLETED, S.FAILED, S.ABORTED}),
    S.TOOL_RUNNING: frozenset(
        {S.MODEL_RUNNING, S.AWAITING_HUMAN, S.COMPLETED, S.FAILED, S.ABORTED, S.TOOL_RUNNING}
    ),
    S.AWAITING_HUMAN: frozenset({S.TOOL_RUNNING, S.MODEL_RUNNING, S.FAILED, S.ABORTED}),
    S.COMPLETED: frozenset(),
    S.FAILED: frozenset(),
    S.ABORTED: frozenset(),
}

TERMINAL = frozenset({S.COMPLETED, S.FAILED, S.ABORTED})


class IllegalTransition(RuntimeError):
    """A bug: the loop tried a transition the state machine does not allow."""


class RunStateMachine:
    """Holds the current state, refuses illegal moves, reports each change. ``model``,
    the model that answers, is named as the loop starts (``preparing``): the run's header."""

    def __init__(self, observer: Observer = null_observer, *, model: str | None = None) -> None:
        self.state = S.IDLE
        self._observer = observer
        self.model = model
        self.history: list[RunState] = [S.IDLE]

    def to(self, new: RunState, detail: str = "") -> None:
        if new == self.state and new not in (S.MODEL_RUNNING, S.TOOL_RUNNING):
            return
        if new not in TRANSITIONS[self.state]:
            raise IllegalTransition(f"{self.state} -> {new}")
        changed = new != self.state
        self.state = new
        self.history.append(new)
        if changed or detail:
            named = self.model if new == S.PREPARING else None
            self._observer(StatusChanged(new, detail, model=named))

    @property
    def finished(self) -> bool:
        return self.state in TERMINAL
