"""The agent loop, async.

One step: check cancellation, call the model (streaming its text to the observer),
stop if it answered without tool calls, else run the calls (in parallel when the
policy would ask about none of them), append the results, manage the context, go on.
Every way the loop ends is a ``LoopEnded`` raised where the reason is known (a run may
be several loops: the planner's and the builder's, self-evaluation's retries). Everything
the loop needs is passed in; it knows nothing of terminals or LSP.

With a ``SessionRecorder`` the loop also persists the run: each model
turn gets a ``model_call_index`` (retries inside the adapter reuse it), streamed
deltas are de-duplicated by (runId, model_call_index, seq), only the final
assistant message of a turn is committed, each tool call is written before it runs
and its result after, and a failed session write ends the run at once as failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agentls.agent.cancel import CancelToken, Interrupted, race_cancel
from agentls.agent.config.models import AgentConfig
from agentls.agent.context import format_tool_result
from agentls.agent.engine_types import ContextBuilderLike, ContextManagerLike
from agentls.agent.errors import StepTimeoutError
from agentls.agent.events import (
    ContextCompacted,
    ContextMeasured,
    MessagesDelivered,
    Notice,
    Observer,
    RunState,
    StepStarted,
    StreamRestarted,
    StreamText,
    ToolFinished,
    ToolStarted,
    UsageReported,
    null_observer,
)
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart, ToolCall, Usage
from agentls.agent.llm.protocol import LLM
from agentls.agent.run_messages import RunMessages, as_model_message
from agentls.agent.run_record import RunRecord, StepResult
from agentls.agent.sessions.recorder import SessionRecorder
from agentls.agent.sessions.store import SessionWriteError
from agentls.agent.state_machine import RunStateMachine
from agentls.agent.text import shorten
from agentls.agent.tools.base import ToolCallResult, ToolResult
from agentls.agent.tools.engine import AbortedByUser, ExecutionEngine

log = logging.getLogger(__name__)

MAX_PARALLEL_TOOLS = 4
REPEATED_FAILURE_LIMIT = 3
CONTINUE_PROMPT = "Continue from where you left off."


#: How many times Stop hooks may keep one loop going before it ends anyway.
MAX_STOP_OBJECTIONS = 3


class _Steered(Exception):
    """The user steered while the model worked: its call is cut and made again."""


class LoopEnded(Exception):
    """Ends one loop, carrying why: the state's status, the output the front end shows
    and, when it is not the status's usual one, the run state to end in. (The session's
    last entry of a run is ``RunFinishEntry``; the run's answer, ``RunOutcome``.)"""

    def __init__(self, status: str, output: str, run_state: RunState | None = None) -> None:
        super().__init__(output)
        self.status = status
        self.output = output
        self.run_state = run_state


class DeltaDedupe:
    """A streamed delta is shown once per (runId, model_call_index, seq), even when a
    retried or resumed stream sends it again."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, int, int]] = set()

    def first_time(self, run_id: str, model_call_index: int, seq: int) -> bool:
        key = (run_id, model_call_index, seq)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


class AgentLoop:
    def __init__(
        self,
        llm: LLM,
        engine: ExecutionEngine,
        agent_config: AgentConfig,
        ctx: ContextBuilderLike,
        *,
        observer: Observer = null_observer,
        cancel: CancelToken | None = None,
        step_timeout: float = 0,
        context_manager: ContextManagerLike | None = None,
        stream: bool = True,
        parallel_tools: bool = True,
        model_name: str | None = None,
        session: SessionRecorder | None = None,
        machine: RunStateMachine | None = None,
        inbox: Callable[[], Sequence[str]] | None = None,
        messages: RunMessages | None = None,
        token_budget: int | None = None,
        background: Callable[[], Awaitable[bool]] | None = None,
    ) -> None:
        self.llm = llm
        self.engine = engine
        self.agent_config = agent_config
        self.ctx = ctx
        self.observer = observer
        self.cancel = cancel or CancelToken()
        self.step_timeout = step_timeout
        self.context_manager = context_manager
        self.stream = stream
        self.parallel_tools = parallel_tools
        self.model_name = model_name
        # Shared with the engine (awaiting_human) when the caller builds both.
        self.machine = machine or RunStateMachine(observer)
        self._failures: Counter[str] = Counter()
        self.session = session
        self.model_call_index = session.model_call_index if session is not None else 0
        self.deltas = DeltaDedupe()
        # News from the front end for the model (e.g. what the user kept or undid of its
        # edits), read before each model call.
        self.inbox = inbox
        # What the user sends while the run works.
        self.messages = messages
        self._stop_objections = 0
        self.token_budget = token_budget
        #: Waits for work the run started in the background (subagents the model did not
        #: wait for); True when its news wait in the inbox. The loop never ends before.
        self.background = background
        #: Tokens spent by the run's earlier loops (planning, self-evaluation retries).
        self.spent_before = 0

    # -- the loop ----------------------------------------------------------------
    async def run(
        self,
        prompt: str,
        *,
        history: Sequence[dict[str, Any]] = (),
        images: Sequence[dict[str, Any]] = (),
    ) -> RunRecord:
        """Steps until one ends the run by raising ``LoopEnded`` with its reason.
        ``images`` (image parts) go with the prompt."""
        self.machine.to(RunState.PREPARING)
        messages = self.ctx.build_initial(self.agent_config.system_prompt, prompt)
        if images:
            parts = [{"type": "text", "text": prompt}, *images]
            messages = [*messages[:-1], {**messages[-1], "content": parts}]
        # What happened since the model last heard (the user's review of earlier edits)
        # comes before the new prompt, as the context the prompt is written in.
        news = "\n\n".join(self.inbox()) if self.inbox is not None else ""
        before = [{"role": "user", "content": news}] if news else []
        if history or before:
            # Earlier turns of the session go between the system prompt and the new prompt.
            messages = [messages[0], *history, *before, *messages[1:]]
        tools_schema = self.engine.registry.get_schemas(self.agent_config.allowed_tools or None)
        state = RunRecord(messages=messages, model=self.model_name)
        max_steps = self.agent_config.max_steps
        try:
            if self.session is not None:
                if news:
                    await self.session.note(news)
                await self.session.user(prompt)
            for step in range(1, max_steps + 1):
                await self._step(state, step, tools_schema or None)
            raise LoopEnded(
                "partial", f"Reached the limit of {max_steps} steps before the task was finished."
            )
        except LoopEnded as end:
            self._end(state, end.status, end.output, end.run_state)
        except SessionWriteError as exc:
            # Memory and disk must not diverge, so the run stops here.
            self._end(state, "failed", f"Run stopped: {exc}")
        except asyncio.CancelledError:
            # The whole task was cancelled from outside (a second Ctrl-C, server
            # shutdown): record it, then let the cancellation go on.
            if not state.is_finished:
                stopped = self._interrupted(state)
                self._end(state, stopped.status, stopped.output, stopped.run_state)
            raise
        return state

    async def _step(self, state: RunRecord, step: int, tools: list[dict[str, Any]] | None) -> None:
        """One model turn and what it asked for. Returns to go on; raises ``LoopEnded``."""
        if self.cancel.cancelled:
            raise self._interrupted(state)
        self.observer(StepStarted(step, self.agent_config.max_steps))
        self.machine.to(RunState.MODEL_RUNNING)
        self._next_model_call()  # once per turn: the adapter's retries reuse it
        await self._read_inbox(state)
        await self._measure(state, step)
        response = await self._model_response(state, step, tools)
        if response.tool_calls:
            await self._tool_step(state, step, response, tools)
            return
        if response.finish_reason == "length":
            state.messages = self.ctx.append_assistant_message(
                state.messages, response.content or ""
            )
            state.messages = self.ctx.append_user_message(state.messages, CONTINUE_PROMPT)
            if self.session is not None:
                await self.session.user(CONTINUE_PROMPT)
            state.steps.append(StepResult(step, response, [], model=self.model_name))
            return
        if response.finish_reason == "stop":
            state.messages = self.ctx.append_assistant_message(
                state.messages, response.content or ""
            )
            if self.messages is not None and self.messages.waiting:
                # The user wrote while the model was finishing: it answers that first.
                state.steps.append(StepResult(step, response, [], model=self.model_name))
                return
            if await self._background_news(state):
                # A subagent it did not wait for has reported: the model reads it first.
                state.steps.append(StepResult(step, response, [], model=self.model_name))
                return
            objection = await self._stop_hooks(response.content or "")
            if objection is not None:
                state.messages = self.ctx.append_user_message(state.messages, objection)
                if self.session is not None:
                    await self.session.user(objection)
                state.steps.append(StepResult(step, response, [], model=self.model_name))
                return
            raise LoopEnded("success", response.content or "")
        raise LoopEnded("partial", response.content or "")

    async def _model_response(
        self, state: RunRecord, step: int, tools: list[dict[str, Any]] | None
    ) -> LLMResponse:
        """The model's answer, committed and counted; a failed call ends the run."""
        cuts = 0
        try:
            while True:
                try:
                    response = await self._steerable_call(state.messages, tools)
                    break
                except _Steered:
                    # The text of the cut call is void; the call starts again with the
                    # user's message, under a new index so its deltas are not taken for
                    # the cut call's.
                    cuts += 1
                    self.observer(StreamRestarted("the user sent a message", cuts + 1))
                    self._next_model_call()
                    await self._read_inbox(state)
        except Interrupted:
            raise self._interrupted(state) from None
        except StepTimeoutError as exc:
            raise LoopEnded(
                "partial", f"Step {step} exceeded its timeout of {exc.seconds:g}s."
            ) from None
        except Exception as exc:
            log.debug("model call failed", exc_info=True)
            raise LoopEnded("failed", f"LLM error: {exc}") from None
        if self.session is not None:  # only the final assistant message is committed
            await self.session.assistant(
                response.content, response.tool_calls, response.finish_reason, self.model_name
            )
        state.usage = state.usage.add(response.usage)
        if response.usage:
            u = state.usage
            self.observer(UsageReported(u.prompt_tokens, u.completion_tokens, u.total_tokens))
        spent = state.usage.total_tokens + self.spent_before
        if self.token_budget is not None and spent >= self.token_budget and response.tool_calls:
            # The answer that ends the run is kept; a step that would go on is not taken.
            raise LoopEnded(
                "partial",
                f"Stopped: the run used {spent} tokens, its budget is {self.token_budget}.",
            )
        return response

    async def _tool_step(
        self,
        state: RunRecord,
        step: int,
        response: LLMResponse,
        tools: list[dict[str, Any]] | None,
    ) -> None:
        """Run the calls, append their results, stop a failing loop, manage the context."""
        self.machine.to(RunState.TOOL_RUNNING)
        try:
            results = await self._execute_batch(response.tool_calls, step)
        except AbortedByUser as exc:
            raise LoopEnded("partial", f"Run aborted: {exc}.", RunState.ABORTED) from None
        state.messages = self.ctx.append_tool_results(state.messages, response, results)
        state.steps.append(StepResult(step, response, results, model=self.model_name))
        repeated = self._repeated_failure(results)
        if repeated:
            raise LoopEnded("partial", repeated)
        if self.context_manager is None:
            return
        await self._pre_compact_hooks(state)
        before = len(state.messages)
        earlier = state.messages
        # The summary request carries the same tools, so it extends the previous request.
        state.messages = await self.context_manager.maybe_compress(state.messages, self.llm, tools)
        state.messages = await self.context_manager.enforce_window(state.messages)
        if len(state.messages) != before:
            if self.session is not None:
                await self.session.context_update("compacted", before, len(state.messages))
            await self._tell_compaction(step, earlier, state.messages)

    async def _background_news(self, state: RunRecord) -> bool:
        if self.background is None:
            return False
        try:
            return await race_cancel(self.background(), self.cancel)
        except Interrupted:
            raise self._interrupted(state) from None

    # -- hooks --------------------------------------------------------------------
    async def _stop_hooks(self, answer: str) -> str | None:
        """Stop hooks, as the model would end the run: a block keeps it going with the
        hook's reason as the next user message. After one such objection the hooks are
        told (``stop_hook_active``), so that a hook that always objects cannot loop."""
        hooks = self.engine.run.hooks
        if hooks is None or not hooks.has("Stop"):
            return None
        payload = {"stop_hook_active": self._stop_objections > 0, "last_message": answer}
        outcome = await hooks.run("Stop", payload)
        for problem in outcome.problems:
            self.observer(Notice("warning", problem))
        if not outcome.blocked or self._stop_objections >= MAX_STOP_OBJECTIONS:
            return None
        self._stop_objections += 1
        return f"[A Stop hook of the project objects to ending here]\n{outcome.reason}"

    async def _pre_compact_hooks(self, state: RunRecord) -> None:
        """PreCompact hooks, when the context is past the mark where compaction starts
        (they are told; they cannot prevent it)."""
        hooks = self.engine.run.hooks
        if hooks is None or self.context_manager is None or not hooks.has("PreCompact"):
            return
        try:
            used, limit = await self.context_manager.measure(state.messages)
        except Exception:
            return
        mark = self.engine.run.config.context.compact_at
        if not mark or used < mark * limit:
            return
        outcome = await hooks.run("PreCompact", {"trigger": "auto", "tokens": used})
        for problem in outcome.problems:
            self.observer(Notice("warning", problem))

    # -- the context meter --------------------------------------------------------
    async def _measure(self, state: RunRecord, step: int) -> None:
        """How full the context is as the model call starts (the meter a user watches)."""
        if self.context_manager is None:
            return
        try:
            used, limit = await self.context_manager.measure(state.messages)
        except Exception as exc:  # a meter that cannot count never stops the run
            log.debug("cannot measure the context: %s", exc)
            return
        self.observer(ContextMeasured(step, used, limit))

    async def _tell_compaction(
        self, step: int, before: list[dict[str, Any]], after: list[dict[str, Any]]
    ) -> None:
        assert self.context_manager is not None
        try:
            tokens_before, _ = await self.context_manager.measure(before)
            tokens_after, _ = await self.context_manager.measure(after)
        except Exception as exc:
            log.debug("cannot measure the compaction: %s", exc)
            return
        self.observer(ContextCompacted(step, len(before), len(after), tokens_before, tokens_after))

    # -- pieces -------------------------------------------------------------------
    def _end(
        self, state: RunRecord, status: str, output: str, run_state: RunState | None = None
    ) -> None:
        state.finish(status, output)
        if run_state is None:
            run_state = {"success": RunState.COMPLETED, "failed": RunState.FAILED}.get(
                status, RunState.COMPLETED
            )
        self.machine.to(run_state, "" if status == "success" else output)

    async def _read_inbox(self, state: RunRecord) -> None:
        """What happened to the run's edits since the last step (the user's review
        decisions) and what the user sent meanwhile, told to the model before its next
        call."""
        notes = list(self.inbox()) if self.inbox is not None else []
        sent = self.messages.take() if self.messages is not None else []
        if sent:
            notes.append(as_model_message(sent))
            self.observer(MessagesDelivered([m.id for m in sent]))
        if not notes:
            return
        note = "\n\n".join(notes)
        state.messages = self.ctx.append_user_message(state.messages, note)
        if self.session is not None:
            await self.session.user(note)

    def _interrupted(self, state: RunRecord) -> LoopEnded:
        return LoopEnded(
            "partial",
            f"Run interrupted ({self.cancel.reason or 'cancelled'}) after {len(state.steps)} "
            "step(s); tool calls already made were completed.",
            RunState.ABORTED,
        )

    async def _steerable_call(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> LLMResponse:
        """The model call, cut when the user steers (``_Steered``)."""
        if self.messages is None:
            return await self._call_model(messages, tools)
        call = asyncio.ensure_future(self._call_model(messages, tools))
        steer = asyncio.ensure_future(self.messages.steered())
        try:
            await asyncio.wait({call, steer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            steer.cancel()
            if not call.done():
                call.cancel()
        if call.cancelled() or not call.done():
            with contextlib.suppress(asyncio.CancelledError):
                await call
            raise _Steered
        return call.result()

    async def _call_model(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> LLMResponse:
        try:
            return await race_cancel(
                self._model_turn(messages, tools), self.cancel, seconds=self.step_timeout or None
            )
        except TimeoutError:
            raise StepTimeoutError(self.step_timeout) from None

    async def _model_turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> LLMResponse:
        if not self.stream:
            return await self.llm.completion(messages, tools)
        response: LLMResponse | None = None
        seq = 0
        async for item in self.llm.completion_stream(messages, tools):
            if isinstance(item, StreamChunk):
                seq += 1
                if self.deltas.first_time(self.engine.run_id, self.model_call_index, seq):
                    self.observer(StreamText(item.data))
            elif isinstance(item, StreamRestart):
                # seq goes on counting: the retried text is new deltas, not duplicates.
                self.observer(StreamRestarted(item.reason, item.attempt))
            else:
                response = item
        if response is None:
            raise RuntimeError("the model stream ended without a final response")
        return response

    def _should_parallelize(self, calls: Sequence[ToolCall]) -> bool:
        """Parallel only when no call would ask a human: the engine's policy decides per
        call (confirm mode, sensitivity, allow-lists, "allow for this run"), so a batch
        with one call to ask about runs in order and asks for that call."""
        if not self.parallel_tools:
            return False
        return all(
            self.engine.decision_for(call, self.agent_config).kind != "needs_approval"
            for call in calls
        )

    async def _execute_batch(self, calls: Sequence[ToolCall], step: int) -> list[ToolCallResult]:
        if len(calls) <= 1 or not self._should_parallelize(calls):
            return [await self._execute_one(call, step) for call in calls]
        limit = asyncio.Semaphore(MAX_PARALLEL_TOOLS)

        async def bounded(call: ToolCall) -> ToolCallResult:
            async with limit:
                return await self._execute_one(call, step)

        # gather keeps the order the model asked for, whatever finishes first.
        return list(await asyncio.gather(*(bounded(call) for call in calls)))

    def _next_model_call(self) -> None:
        self.model_call_index += 1
        if self.session is not None:
            self.session.model_call_index = self.model_call_index

    async def _execute_one(self, call: ToolCall, step: int) -> ToolCallResult:
        max_steps = self.agent_config.max_steps
        shown = self._shown_args(call)
        self.observer(ToolStarted(step, max_steps, call.id, call.name, shown))
        result = await self._run_tool(call)
        self.observer(
            ToolFinished(
                step,
                max_steps,
                call.id,
                call.name,
                shown,
                result.result.success,
                _summary(result.result),
            )
        )
        return result

    async def _run_tool(self, call: ToolCall) -> ToolCallResult:
        """The engine's result, persisted: the call is written before it runs, its
        result after; a call whose result is already stored never runs again."""
        session, index = self.session, self.model_call_index
        if session is None:
            return await self.engine.execute_tool_call(call, self.agent_config)
        stored = session.stored_result(index, call.id)
        if stored is not None:
            output = ToolResult(success=stored.success, output=stored.content)
            return ToolCallResult(call.name, call.arguments, output, call_id=call.id)
        await session.tool_call(index, call.id, call.name, call.arguments)
        try:
            result = await self.engine.execute_tool_call(call, self.agent_config)
        except AbortedByUser:
            text = "The user aborted the run before this call ran; it did not run."
            await session.tool_result(index, call.id, call.name, False, text)
            raise
        await session.tool_result(
            index, call.id, call.name, result.result.success, format_tool_result(result)
        )
        return result

    def _shown_args(self, call: ToolCall) -> dict[str, Any]:
        if self.engine.registry.has_tool(call.name):
            return self.engine.registry.get(call.name).summarize_args(call.arguments)
        return {}

    def _repeated_failure(self, results: list[ToolCallResult]) -> str:
        for item in results:
            if item.result.success:
                continue
            key = item.tool_name + json.dumps(item.args, sort_keys=True, default=str)
            self._failures[key] += 1
            if self._failures[key] >= REPEATED_FAILURE_LIMIT:
                return (
                    f"Stopped: the model repeated the same failing call {item.tool_name} "
                    f"{REPEATED_FAILURE_LIMIT} times with the same arguments. Last error: "
                    f"{_summary(item.result)}"
                )
        return ""


def _summary(result: ToolResult) -> str:
    text = (result.output or result.error or "").strip().splitlines()
    first = text[0] if text else ""
    return shorten(first, 160)


__all__ = ["AgentLoop", "Usage"]
