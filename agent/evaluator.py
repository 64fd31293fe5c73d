"""The SelfEvaluator: the model checks the agent's result after a run.

``basic`` asks once and downgrades a successful run to ``partial`` when the check does
not pass. ``full`` asks, and while the check fails it runs the agent again with a
correction prompt (up to ``max_retries`` rounds), returning the last state.

Evaluation never raises: an unreadable answer or a failed model call is a check that
did not pass, with the reason in ``issues``. In ``full`` mode an unreadable answer
still leads to a correction run (the model may do better asked again), but an
unreachable evaluator ends the rounds: there is no verdict to correct against.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentls.agent.config.models import SelfEvalMode
from agentls.agent.llm.protocol import LLM
from agentls.agent.run_record import RunRecord
from agentls.agent.text import shorten

log = logging.getLogger(__name__)

Message = dict[str, Any]
RunFn = Callable[[str], Awaitable[RunRecord]]

PARSE_FAILURE_ISSUE = "Could not parse the evaluation response as JSON"

_FENCED_RE = re.compile(r"```(?:json)?\s*(\{[\s\S]*?\})\s*```")
_BRACES_RE = re.compile(r"\{[\s\S]*?\}")

# Bounds on what the evaluator is shown: enough to judge, small enough to stay cheap.
_OUTPUT_CHARS = 500
_MAX_LISTED_CALLS = 40

EVAL_SYSTEM_PROMPT = """\
You review the work of a coding agent. Given the task, the agent's final answer and \
the actions it took, judge whether the task was completed correctly.
Reply with JSON only, no prose and no code fence, exactly in this shape:
{"completed": true, "confidence": 0.9, "issues": [], "suggestion": ""}
- "completed": true only if the task as asked is fully done.
- "confidence": a number from 0.0 to 1.0, how sure you are of your judgement.
- "issues": short strings, one per concrete problem found (empty when none).
- "suggestion": what the agent should do next to fix the issues ("" when none)."""


@dataclass
class EvalResult:
    """One evaluation; ``confidence`` is clamped to [0, 1] on creation."""

    completed: bool
    confidence: float
    issues: list[str] = field(default_factory=list)
    suggestion: str = ""
    raw_response: str = ""

    def __post_init__(self) -> None:
        self.confidence = _clamp(self.confidence)


def _clamp(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    if isinstance(value, int | float):
        return value != 0
    return False


def _as_float(value: Any) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _as_issues(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [item if isinstance(item, str) else json.dumps(item) for item in value]
    return [str(value)]


def _loads_object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _first_object(content: str) -> dict[str, Any] | None:
    """Strategy 3: the first ``{...}`` in the text.

    A non-greedy ``{.*?}`` regex would stop at the first ``}``, which breaks on a
    nested object; decoding from the first ``{`` handles that case too.
    """
    found = _BRACES_RE.search(content)
    if found is not None:
        data = _loads_object(found.group(0))
        if data is not None:
            return data
    start = content.find("{")
    if start < 0:
        return None
    try:
        data, _ = json.JSONDecoder().raw_decode(content, start)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def parse_eval(content: str | None) -> EvalResult:
    """Read the evaluator's answer: plain JSON, a fenced block, or the first object.

    Missing fields take the cautious value (not completed, confidence 0), so a
    half-answer never passes the check by accident.
    """
    raw = content or ""
    text = raw.strip()
    data = _loads_object(text) if text else None
    if data is None and text:
        fenced = _FENCED_RE.search(text)
        if fenced is not None:
            data = _loads_object(fenced.group(1))
    if data is None and text:
        data = _first_object(text)
    if data is None:
        return EvalResult(False, 0.0, [PARSE_FAILURE_ISSUE], "", raw)
    suggestion = data.get("suggestion")
    return EvalResult(
        completed=_as_bool(data.get("completed")),
        confidence=_as_float(data.get("confidence")),
        issues=_as_issues(data.get("issues")),
        suggestion=suggestion if isinstance(suggestion, str) else "",
        raw_response=raw,
    )


def summarize_steps(state: RunRecord) -> str:
    """The actions of a run, one line per tool call, for the evaluator to read."""
    lines: list[str] = []
    calls = [(step.step_number, call) for step in state.steps for call in step.tool_calls_made]
    for number, call in calls[:_MAX_LISTED_CALLS]:
        args = ", ".join(f"{key}={_short(value)}" for key, value in call.args.items())
        outcome = "ok" if call.result.success else "failed"
        lines.append(f"- step {number}: {call.tool_name}({args}) -> {outcome}")
    if len(calls) > _MAX_LISTED_CALLS:
        lines.append(f"- ... and {len(calls) - _MAX_LISTED_CALLS} more tool calls")
    if not lines:
        return f"{len(state.steps)} steps, no tool calls."
    return f"{len(state.steps)} steps, {len(calls)} tool calls:\n" + "\n".join(lines)


def _short(value: Any) -> str:
    return shorten(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), 60)


@dataclass(eq=False)
class SelfEvaluator:
    """Asks the model whether a run did what was asked."""

    llm: LLM
    max_retries: int = 2
    confidence_threshold: float = 0.8
    #: The last verdict, so a front end can show the issues after a downgrade.
    last_result: EvalResult | None = field(default=None, init=False)

    def passed(self, result: EvalResult) -> bool:
        return result.completed and result.confidence >= self.confidence_threshold

    async def evaluate_basic(self, original_prompt: str, state: RunRecord) -> EvalResult:
        """One model call, without tools; never raises."""
        result, _ = await self._evaluate(original_prompt, state)
        return result

    async def _evaluate(self, original_prompt: str, state: RunRecord) -> tuple[EvalResult, bool]:
        """The verdict, and whether the model could be asked at all."""
        messages: list[Message] = [
            {"role": "system", "content": EVAL_SYSTEM_PROMPT},
            {
                "role": "user",
                "content": (
                    f"**Original task:**\n{original_prompt}\n\n"
                    f"**Agent's result:**\n{(state.final_output or '')[:_OUTPUT_CHARS]}\n\n"
                    f"**Actions taken:**\n{summarize_steps(state)}\n\n"
                    "Was the task completed correctly?"
                ),
            },
        ]
        try:
            response = await self.llm.completion(messages, tools=None)
        except Exception as exc:
            log.debug("self-evaluation call failed", exc_info=True)
            result = EvalResult(False, 0.0, [f"Evaluation failed: {type(exc).__name__}: {exc}"])
            self.last_result = result
            return result, False
        result = self._parse_eval(response.content)
        self.last_result = result
        return result, True

    def _parse_eval(self, content: str | None) -> EvalResult:
        return parse_eval(content)

    def _build_correction_prompt(self, original_prompt: str, result: EvalResult) -> str:
        issues = "\n".join(f"- {issue}" for issue in result.issues) or "- (none listed)"
        parts = [
            f"The previous attempt at this task was not complete.\n\n"
            f"**Original task:**\n{original_prompt}\n\n"
            f"**Issues found:**\n{issues}"
        ]
        if result.suggestion:
            parts.append(f"**Suggestion:**\n{result.suggestion}")
        parts.append("Fix these issues so the original task is fully done.")
        return "\n\n".join(parts)

    async def evaluate_full(
        self, original_prompt: str, state: RunRecord, run_fn: RunFn
    ) -> RunRecord:
        """Evaluate and, while the check fails, rerun with a correction prompt.

        Up to ``max_retries`` rounds; the state of the last run is
        returned whether or not it was checked to pass, and a failing rerun ends the
        rounds with the state it had. When the evaluator model cannot be reached the
        rounds end too: a correction prompt would carry no real issue, only the
        error, and rerunning the agent on it would spend a whole run for nothing.
        """
        for attempt in range(self.max_retries):
            result, answered = await self._evaluate(original_prompt, state)
            if self.passed(result):
                return state
            if not answered:
                break
            correction = self._build_correction_prompt(original_prompt, result)
            try:
                state = await run_fn(correction)
            except Exception:
                log.debug("correction run %d failed; keeping the last state", attempt + 1)
                break
        return state


async def apply_self_eval(
    mode: SelfEvalMode | str,
    evaluator: SelfEvaluator,
    prompt: str,
    state: RunRecord,
    run_fn: RunFn,
) -> RunRecord:
    """What a front end does after a run: only a ``success`` is evaluated.

    ``basic`` turns a failed check into ``partial``; ``full`` returns
    ``evaluate_full``'s last state; anything else leaves the state alone.
    """
    if state.status != "success":
        return state
    if mode == "basic":
        result = await evaluator.evaluate_basic(prompt, state)
        if not evaluator.passed(result):
            state.status = "partial"
        return state
    if mode == "full":
        return await evaluator.evaluate_full(prompt, state, run_fn)
    return state
