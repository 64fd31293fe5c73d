"""SelfEvaluator: parsing is pure; every evaluation goes through the real LiteLLMAdapter
to the scripted model server, which records what the evaluator was shown."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from agentls.agent.evaluator import (
    EVAL_SYSTEM_PROMPT,
    PARSE_FAILURE_ISSUE,
    EvalResult,
    SelfEvaluator,
    apply_self_eval,
    parse_eval,
)
from agentls.agent.llm.adapter import LiteLLMAdapter
from agentls.agent.llm.models import LLMResponse, ToolCall
from agentls.agent.llm.scripted_server import ScriptedModelServer, error, text
from agentls.agent.run_record import RunRecord, StepResult
from agentls.agent.tools.base import ToolCallResult, ToolResult

PASS = json.dumps({"completed": True, "confidence": 0.95, "issues": [], "suggestion": ""})
FAIL = json.dumps(
    {
        "completed": False,
        "confidence": 0.4,
        "issues": ["tests/test_utils.py was not created"],
        "suggestion": "Create tests/test_utils.py with pytest tests",
    }
)


@pytest.fixture
def llm(adapter_for: Callable[..., tuple[LiteLLMAdapter, str]]) -> LiteLLMAdapter:
    return adapter_for(retries=0)[0]


def script(scripted: ScriptedModelServer, llm: LiteLLMAdapter, *answers: str) -> None:
    scripted.add(llm.config.model, *(text(answer) for answer in answers))


def sent(scripted: ScriptedModelServer, llm: LiteLLMAdapter) -> list[dict[str, Any]]:
    return [request.body for request in scripted.requests_for(llm.config.model)]


def finished_state(output: str = "Created utils.py", status: str = "success") -> RunRecord:
    call = ToolCallResult(
        tool_name="write_file",
        args={"path": "src/utils.py", "content": "x" * 200},
        result=ToolResult.ok("written"),
    )
    failed = ToolCallResult(
        tool_name="read_file", args={"path": "missing.py"}, result=ToolResult.fail("not found")
    )
    step = StepResult(
        step_number=1,
        llm_response=LLMResponse(
            tool_calls=[ToolCall(id="c1", name="write_file")], finish_reason="tool_calls"
        ),
        tool_calls_made=[call, failed],
    )
    return RunRecord(messages=[], steps=[step], status=status, final_output=output)


# ---------------------------------------------------------------- parsing


def test_parse_plain_json() -> None:
    result = parse_eval(FAIL)
    assert result == EvalResult(
        completed=False,
        confidence=0.4,
        issues=["tests/test_utils.py was not created"],
        suggestion="Create tests/test_utils.py with pytest tests",
        raw_response=FAIL,
    )


def test_parse_fenced_block() -> None:
    content = f"Here is my verdict:\n```json\n{PASS}\n```\nThanks."
    result = parse_eval(content)
    assert result.completed and result.confidence == 0.95
    assert result.raw_response == content


def test_parse_first_object_in_prose() -> None:
    result = parse_eval('I think {"completed": true, "confidence": 0.85} is fair. {"x": 1}')
    assert result.completed and result.confidence == 0.85


def test_parse_first_object_with_nested_braces() -> None:
    content = 'Verdict: {"completed": false, "confidence": 0.5, "issues": [{"file": "a.py"}]}'
    result = parse_eval(content)
    assert not result.completed
    assert result.issues == ['{"file": "a.py"}']


@pytest.mark.parametrize("content", ["", None, "looks good to me", "[1, 2]", "{not json}"])
def test_parse_garbage(content: str | None) -> None:
    result = parse_eval(content)
    assert not result.completed
    assert result.confidence == 0.0
    assert result.issues == [PARSE_FAILURE_ISSUE]


@pytest.mark.parametrize(("given", "expected"), [(1.7, 1.0), (-0.3, 0.0), ("0.6", 0.6), ("x", 0.0)])
def test_parse_clamps_confidence(given: Any, expected: float) -> None:
    result = parse_eval(json.dumps({"completed": True, "confidence": given}))
    assert result.confidence == expected


def test_eval_result_clamps_on_creation() -> None:
    assert EvalResult(True, 3.0).confidence == 1.0
    assert EvalResult(True, float("nan")).confidence == 0.0


def test_parse_missing_fields_are_cautious() -> None:
    result = parse_eval("{}")
    assert result == EvalResult(False, 0.0, [], "", "{}")
    only_completed = parse_eval('{"completed": true}')
    assert only_completed.completed and only_completed.confidence == 0.0
    assert parse_eval('{"completed": "true", "confidence": 1, "issues": "one"}').issues == ["one"]


# ---------------------------------------------------------------- basic


async def test_evaluate_basic_sends_task_output_and_actions(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, PASS)
    state = finished_state(output="y" * 600)
    result = await SelfEvaluator(llm).evaluate_basic("create src/utils.py", state)
    assert result.completed and result.confidence == 0.95
    assert result.raw_response == PASS

    (body,) = sent(scripted, llm)
    assert "tools" not in body
    system, user = body["messages"]
    assert system == {"role": "system", "content": EVAL_SYSTEM_PROMPT}
    assert '"completed"' in system["content"] and "JSON only" in system["content"]
    assert "create src/utils.py" in user["content"]
    assert "y" * 500 in user["content"] and "y" * 501 not in user["content"]
    assert "write_file(path=src/utils.py" in user["content"]
    assert "read_file(path=missing.py) -> failed" in user["content"]


async def test_basic_pass_keeps_success(scripted: ScriptedModelServer, llm: LiteLLMAdapter) -> None:
    script(scripted, llm, PASS)
    state = finished_state()
    out = await apply_self_eval("basic", SelfEvaluator(llm), "task", state, _never_run)
    assert out is state and out.status == "success"


async def test_basic_fail_downgrades_to_partial(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, FAIL)
    evaluator = SelfEvaluator(llm)
    out = await apply_self_eval("basic", evaluator, "task", finished_state(), _never_run)
    assert out.status == "partial"
    assert evaluator.last_result is not None
    assert evaluator.last_result.issues == ["tests/test_utils.py was not created"]


async def test_basic_low_confidence_is_not_a_pass(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, json.dumps({"completed": True, "confidence": 0.7}))
    evaluator = SelfEvaluator(llm, confidence_threshold=0.8)
    out = await apply_self_eval("basic", evaluator, "task", finished_state(), _never_run)
    assert out.status == "partial"


async def test_llm_error_is_a_failed_check_not_an_exception(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    scripted.add(llm.config.model, error(500, "evaluator exploded"))
    result = await SelfEvaluator(llm).evaluate_basic("task", finished_state())
    assert not result.completed and result.confidence == 0.0
    assert len(result.issues) == 1 and "Evaluation failed" in result.issues[0]

    scripted.add(llm.config.model, error(500, "again"))
    out = await apply_self_eval("basic", SelfEvaluator(llm), "task", finished_state(), _never_run)
    assert out.status == "partial"


@pytest.mark.parametrize("status", ["partial", "failed", "running"])
async def test_only_success_is_evaluated(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter, status: str
) -> None:
    state = finished_state(status=status)
    for mode in ("basic", "full"):
        assert await apply_self_eval(mode, SelfEvaluator(llm), "t", state, _never_run) is state
    assert state.status == status
    assert sent(scripted, llm) == []


async def test_mode_off_does_nothing(scripted: ScriptedModelServer, llm: LiteLLMAdapter) -> None:
    state = finished_state()
    assert await apply_self_eval("off", SelfEvaluator(llm), "t", state, _never_run) is state
    assert state.status == "success" and sent(scripted, llm) == []


# ---------------------------------------------------------------- full


async def _never_run(prompt: str) -> RunRecord:
    raise AssertionError(f"no correction run expected, got {prompt!r}")


class Reruns:
    """A run_fn that records the correction prompts and returns new states."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.prompts: list[str] = []
        self.fail_on = fail_on

    async def __call__(self, prompt: str) -> RunRecord:
        self.prompts.append(prompt)
        if self.fail_on is not None and len(self.prompts) == self.fail_on:
            raise RuntimeError("rerun crashed")
        return finished_state(output=f"attempt {len(self.prompts) + 1}")


async def test_full_passes_first_time_without_rerun(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, PASS)
    state = finished_state()
    out = await apply_self_eval("full", SelfEvaluator(llm), "task", state, _never_run)
    assert out is state


async def test_full_reruns_with_correction_then_passes(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, FAIL, PASS)
    reruns = Reruns()
    out = await SelfEvaluator(llm, max_retries=2).evaluate_full(
        "add tests for utils", finished_state(), reruns
    )
    assert out.final_output == "attempt 2"
    (prompt,) = reruns.prompts
    assert "add tests for utils" in prompt
    assert "tests/test_utils.py was not created" in prompt
    assert "Create tests/test_utils.py with pytest tests" in prompt
    # The second evaluation judged the rerun's result.
    assert "attempt 2" in sent(scripted, llm)[1]["messages"][1]["content"]


async def test_full_gives_up_after_max_retries_with_the_last_state(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, FAIL, FAIL, FAIL)
    reruns = Reruns()
    out = await SelfEvaluator(llm, max_retries=3).evaluate_full("task", finished_state(), reruns)
    assert len(reruns.prompts) == 3
    assert out.final_output == "attempt 4"
    assert len(sent(scripted, llm)) == 3


async def test_full_stops_when_a_rerun_raises(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, FAIL, FAIL)
    reruns = Reruns(fail_on=2)
    out = await SelfEvaluator(llm, max_retries=4).evaluate_full("task", finished_state(), reruns)
    assert out.final_output == "attempt 2"  # the state of the last run that finished
    assert len(reruns.prompts) == 2
    assert len(sent(scripted, llm)) == 2


async def test_full_stops_when_the_evaluator_cannot_be_reached(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    scripted.add(llm.config.model, error(500, "flaky"))
    state = finished_state()
    evaluator = SelfEvaluator(llm, max_retries=2)
    out = await evaluator.evaluate_full("task", state, _never_run)
    assert out is state
    assert evaluator.last_result is not None
    assert "Evaluation failed" in evaluator.last_result.issues[0]


async def test_full_reruns_on_an_unparsable_verdict(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    script(scripted, llm, "I cannot tell.", PASS)
    reruns = Reruns()
    out = await SelfEvaluator(llm, max_retries=2).evaluate_full("task", finished_state(), reruns)
    assert out.final_output == "attempt 2"
    assert PARSE_FAILURE_ISSUE in reruns.prompts[0]
