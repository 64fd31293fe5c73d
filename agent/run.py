"""One run of an agent, composed from injected parts: the front ends' entry point.

The CLI and the language server differ only in what they pass in: the FileAccess
(disk or the editor's buffers), the Approver (terminal or showMessageRequest) and
the Observer (printing or notifications). Everything else is composed here.

Every run belongs to a session (``agent.sessions``): the session's earlier turns
are the loop's ``history``, the loop writes the run's entries through a
``SessionRecorder``, and human decisions are recorded by a ``RecordingApprover``.
Tools reach the observer (``update_plan``), the recorder, the run's state machine
(``run_state``) and the front end's ``ask_user`` through ``ctx.extras``.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any

from agentls.agent.agents import MIXED, AgentRegistry
from agentls.agent.approval import Approver
from agentls.agent.cancel import CancelToken
from agentls.agent.checkpoints import CheckpointingFiles, CheckpointingProbe, CheckpointStore
from agentls.agent.config import AgentConfig, AppConfig
from agentls.agent.contract import RunRequest, RunResult
from agentls.agent.events import Notice, Observer, RunState, StatusChanged, null_observer
from agentls.agent.llm.models import Usage
from agentls.agent.loop import AgentLoop
from agentls.agent.process import FileSnapshotProbe
from agentls.agent.runstate import RunStateMachine
from agentls.agent.sessions import RecordingApprover, SessionRecorder, SessionStore, store_for
from agentls.agent.state import AgentState
from agentls.agent.tools import build_registry
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.tools.registry import ToolRegistry
from agentls.agent.workspace import FileAccess

log = logging.getLogger(__name__)

__all__ = ["RunOutcome", "RunRequest", "run_agent"]

PLAN_HANDOFF = (
    "{prompt}\n\n## Plan prepared by the planning agent\n{plan}\n\n"
    "Carry out this plan. Adjust it where the code shows it is wrong."
)


@dataclass
class RunOutcome:
    state: AgentState
    run_id: str
    session_id: str
    agent: str

    @property
    def usage(self) -> Usage:
        return self.state.usage

    def to_result(self) -> dict[str, Any]:
        """The ``agent/run`` result (``RunResult``), as it goes on the wire."""
        output = self.state.to_output_dict()
        result = RunResult(
            **output, run_id=self.run_id, session_id=self.session_id, usage=self.state.usage
        )
        return result.to_wire()


def resolve_agent(config: AppConfig, request: RunRequest) -> AgentConfig:
    agent = AgentRegistry(config).get("build" if request.agent == MIXED else request.agent)
    updates: dict[str, Any] = {}
    if request.confirm_mode is not None:
        updates["confirm_mode"] = request.confirm_mode
    if request.max_steps is not None:
        updates["max_steps"] = request.max_steps
    return agent.model_copy(update=updates)


async def run_agent(
    request: RunRequest,
    *,
    config: AppConfig,
    llm: Any,
    files: FileAccess,
    approver: Approver,
    observer: Observer = null_observer,
    index: Any = None,
    cancel: CancelToken | None = None,
    registry: ToolRegistry | None = None,
    extras: dict[str, Any] | None = None,
    history: list[dict[str, Any]] | None = None,
    sessions: SessionStore | None = None,
) -> RunOutcome:
    """Run ``request`` to the end. Never raises for a failure of the run itself:
    errors become a ``failed`` state with a message; only cancellation of the
    calling task propagates. ``history=None`` continues the session's conversation;
    ``sessions`` defaults to the store of ``config.sessions.dir`` in the workspace the
    run works on (the FileAccess root, never the process's current directory)."""
    from agentls.agent.context import ContextBuilder, ContextManager

    run_id = request.run_id or uuid.uuid4().hex[:12]
    session_id = request.session_id or uuid.uuid4().hex[:12]
    cancel = cancel or CancelToken()
    registry = registry or build_registry(config)
    stream = config.llm.stream if request.stream is None else request.stream
    extras = {"llm": llm, "cancel": cancel, "observer": observer, **(extras or {})}
    store = sessions or store_for(files.root, config.sessions.dir)
    recorder: SessionRecorder | None = None
    last_state = RunState.IDLE

    def tree() -> str | None:
        format_tree = getattr(index, "format_tree", None)
        return format_tree() if callable(format_tree) else None

    counter = getattr(llm, "count_tokens", None)
    context_manager = ContextManager(config.context, token_counter=counter)

    async def one_run(prompt: str, agent: AgentConfig, *, streaming: bool) -> AgentState:
        nonlocal last_state
        machine = RunStateMachine(observer)
        # ask_user waits in awaiting_human, like an approval does.
        run_extras = {**extras, "session": recorder, "run_state": machine.to}
        engine = ExecutionEngine(
            registry,
            files,
            config,
            approver=approver if recorder is None else RecordingApprover(approver, recorder),
            index=index,
            dry_run=request.dry_run,
            run_id=run_id,
            extras=run_extras,
            on_state=machine.to,  # awaiting_human while a human is asked
        )
        loop = AgentLoop(
            llm,
            engine,
            agent,
            ContextBuilder(config.context, tree=tree if index is not None else None),
            observer=observer,
            cancel=cancel,
            step_timeout=request.step_timeout,
            context_manager=context_manager,
            stream=streaming,
            parallel_tools=config.context.parallel_tools,
            model_name=config.llm.model,
            session=recorder,
            machine=machine,
            inbox=extras.get("inbox"),
        )
        try:
            return await loop.run(prompt, history=history or ())
        finally:
            last_state = loop.machine.state

    try:
        recorder = SessionRecorder(store.open(session_id), run_id, agent=request.agent)
        # Every write of the run keeps the file's previous bytes, so the run can be undone.
        files = CheckpointingFiles(files, CheckpointStore.for_session(store, session_id), run_id)
        extras["changes_probe"] = CheckpointingProbe(
            extras.get("changes_probe") or FileSnapshotProbe(files.root), files, index
        )
        if history is None:
            history = recorder.history()
        await recorder.start(request.prompt)
        agent = resolve_agent(config, request)
        if request.agent == MIXED:
            planner = AgentRegistry(config).get("plan")
            plan_state = await one_run(request.prompt, planner, streaming=False)
            if plan_state.status != "success" or cancel.cancelled:
                return RunOutcome(plan_state, run_id, session_id, request.agent)
            prompt = PLAN_HANDOFF.format(prompt=request.prompt, plan=plan_state.final_output)
            state = await one_run(prompt, agent, streaming=stream)
            state.usage = state.usage.add(plan_state.usage)
        else:
            state = await one_run(request.prompt, agent, streaming=stream)
        state = await _self_evaluate(request, config, llm, state, one_run, agent)
    except Exception as exc:  # the run fails; the front end must not see a traceback
        log.exception("run %s failed", run_id)
        state = AgentState(messages=[], model=config.llm.model)
        state.finish("failed", f"{type(exc).__name__}: {exc}")
        observer(Notice("error", str(exc)))
        observer(StatusChanged(RunState.FAILED, str(exc)))
    if recorder is not None:
        await _record_finish(recorder, state, last_state, observer)
    return RunOutcome(state, run_id, session_id, request.agent)


async def _record_finish(
    recorder: SessionRecorder, state: AgentState, last: RunState, observer: Observer
) -> None:
    """The run's last entry. If even that cannot be written, the run is failed."""
    try:
        await recorder.finish(state.status, last.value, state.final_output or "")
    except Exception as exc:
        log.warning("run %s: %s", recorder.run_id, exc)
        if state.status != "failed":
            state.finish("failed", f"Run stopped: {exc}")
            observer(Notice("error", str(exc)))


async def _self_evaluate(
    request: RunRequest,
    config: AppConfig,
    llm: Any,
    state: AgentState,
    one_run: Any,
    agent: AgentConfig,
) -> AgentState:
    mode = request.self_eval or config.evaluation.mode
    if mode == "off" or state.status != "success":
        return state
    from agentls.agent.evaluator import SelfEvaluator, apply_self_eval

    evaluator = SelfEvaluator(
        llm,
        max_retries=config.evaluation.max_retries,
        confidence_threshold=config.evaluation.confidence_threshold,
    )

    async def rerun(prompt: str) -> AgentState:
        # The seed runs corrections without streaming: the callback has no sense there.
        result: AgentState = await one_run(prompt, agent, streaming=False)
        return result

    evaluated: AgentState = await apply_self_eval(mode, evaluator, request.prompt, state, rerun)
    return evaluated
