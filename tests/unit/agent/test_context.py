"""ContextBuilder and the three levels of ContextManager.

Level 2 and the builder's output go through the real LiteLLMAdapter to the scripted
model server, so what is checked is what a provider would receive. A fake model
appears only in the property test of level 2, which checks message shaping over
hundreds of random histories.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.agent.config.models import ContextConfig
from agentls.agent.context import (
    SUMMARY_PREFIX,
    ContextBuilder,
    ContextManager,
    truncate_text,
)
from agentls.agent.llm.adapter import LiteLLMAdapter
from agentls.agent.llm.models import LLMResponse, ToolCall
from agentls.agent.llm.scripted_server import ScriptedModelServer, error, text
from agentls.agent.llm.tokens import estimate_tokens
from agentls.agent.tools.base import ToolCallResult, ToolResult

Message = dict[str, Any]


# ---------------------------------------------------------------- helpers


@pytest.fixture
def llm(adapter_for: Callable[..., tuple[LiteLLMAdapter, str]]) -> LiteLLMAdapter:
    return adapter_for(retries=0)[0]


def config(**overrides: int) -> ContextConfig:
    return ContextConfig(**overrides)  # type: ignore[arg-type]


def exchange(step: int, calls: int = 1, size: int = 10) -> list[Message]:
    ids = [f"call_{step}_{n}" for n in range(calls)]
    assistant: Message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{step}.py"})},
            }
            for call_id in ids
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": call_id, "content": f"step {step} " + "x" * size}
        for call_id in ids
    ]
    return [assistant, *results]


def history(steps: int, calls: int = 1, size: int = 10) -> list[Message]:
    messages: list[Message] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "refactor main.py"},
    ]
    for step in range(1, steps + 1):
        messages.extend(exchange(step, calls, size))
    return messages


def assert_pairing(messages: list[Message]) -> None:
    """Every tool_calls message is followed by exactly its results, and every tool
    message belongs to the tool_calls message just before it."""
    i = 0
    while i < len(messages):
        message = messages[i]
        assert message["role"] != "tool", f"orphan tool message at {i}: {message}"
        if message["role"] == "assistant" and message.get("tool_calls"):
            wanted = [call["id"] for call in message["tool_calls"]]
            got = []
            i += 1
            while i < len(messages) and messages[i]["role"] == "tool":
                got.append(messages[i]["tool_call_id"])
                i += 1
            assert got == wanted, f"results {got} do not answer calls {wanted}"
            continue
        i += 1


def tool_exchange_count(messages: list[Message]) -> int:
    return sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))


def tool_result(output: str, call_id: str = "", error: str | None = None) -> ToolCallResult:
    result = ToolResult(success=error is None, output=output, error=error)
    return ToolCallResult(tool_name="read_file", args={}, result=result, call_id=call_id)


# ---------------------------------------------------------------- level 1


def test_level1_short_result_unchanged() -> None:
    manager = ContextManager(config(max_tool_result_tokens=100))
    assert manager.truncate_tool_result("hello\nworld") == "hello\nworld"


def test_level1_zero_disables() -> None:
    content = "\n".join(f"line {n}" for n in range(5000))
    assert ContextManager(config(max_tool_result_tokens=0)).truncate_tool_result(content) == (
        content
    )


def test_level1_keeps_head_and_tail_lines_with_marker() -> None:
    lines = [f"line {n}" for n in range(500)]
    out = ContextManager(config(max_tool_result_tokens=200)).truncate_tool_result("\n".join(lines))
    kept = out.split("\n")
    assert kept[:40] == lines[:40]
    assert kept[-20:] == lines[-20:]
    assert kept[40] == "[... 440 lines omitted ...]"
    assert len(kept) == 61


def test_level1_single_huge_line_is_cut_by_characters() -> None:
    minified = "var a=1;" * 20_000
    out = truncate_text(minified, 100)
    assert len(out) <= 400
    assert "characters omitted ...]" in out
    assert out.startswith("var a=1;")
    assert out.endswith("var a=1;")


def test_level1_many_long_lines_still_bounded() -> None:
    content = "\n".join("y" * 5000 for _ in range(100))
    out = truncate_text(content, 500)
    assert len(out) <= 2000
    assert "characters omitted" in out


@given(content=st.text(min_size=0, max_size=3000), tokens=st.integers(min_value=13, max_value=400))
def test_level1_always_bounds_the_size(content: str, tokens: int) -> None:
    out = truncate_text(content, tokens)
    assert len(out) <= tokens * 4
    if len(content) <= tokens * 4:
        assert out == content


# ---------------------------------------------------------------- builder


def test_build_initial_with_live_tree() -> None:
    trees = iter(["a.py", "a.py\nb.py"])
    builder = ContextBuilder(config(), tree=lambda: next(trees))
    first = builder.build_initial("You are a coding agent.", "add tests")
    assert first == [
        {"role": "system", "content": "You are a coding agent.\n\n## Project structure\na.py"},
        {"role": "user", "content": "add tests"},
    ]
    # Asked again at the next run: a file created meanwhile appears.
    second = builder.build_initial("You are a coding agent.", "again")
    assert second[0]["content"].endswith("a.py\nb.py")


def test_build_initial_without_tree() -> None:
    for builder in (
        ContextBuilder(config()),
        ContextBuilder(config(), tree=lambda: None),
        ContextBuilder(config(), tree=lambda: "  "),
    ):
        assert builder.build_initial("sys", "do it")[0] == {"role": "system", "content": "sys"}


def test_build_initial_survives_a_broken_tree_provider() -> None:
    def broken() -> str:
        raise OSError("index gone")

    messages = ContextBuilder(config(), tree=broken).build_initial("sys", "do it")
    assert messages[0]["content"] == "sys"


def test_append_tool_results_in_model_order_matched_by_id() -> None:
    builder = ContextBuilder(config(max_tool_result_tokens=100))
    start = builder.build_initial("sys", "task")
    response = LLMResponse(
        content="Reading both.",
        tool_calls=[
            ToolCall(id="c1", name="read_file", arguments={"path": "a.py"}),
            ToolCall(id="c2", name="grep", arguments={"pattern": "ñ"}),
        ],
        finish_reason="tool_calls",
    )
    # Finished in the other order (parallel execution): still answered in call order.
    results = [
        tool_result("found", call_id="c2", error="partial scan"),
        tool_result("\n".join(str(n) for n in range(500)), call_id="c1"),
    ]
    messages = builder.append_tool_results(start, response, results)
    assert start == builder.build_initial("sys", "task")  # the input is not mutated
    assistant, first, second = messages[2:]
    assert assistant == {
        "role": "assistant",
        "content": "Reading both.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "grep", "arguments": '{"pattern": "ñ"}'},
            },
        ],
    }
    assert first["role"] == "tool" and first["tool_call_id"] == "c1"
    assert "lines omitted" in first["content"]  # level 1 applied
    assert second == {
        "role": "tool",
        "tool_call_id": "c2",
        "content": "found\n\nError: partial scan",
    }
    assert_pairing(messages)


def test_append_tool_results_by_position_and_missing_result() -> None:
    builder = ContextBuilder(config())
    response = LLMResponse(
        tool_calls=[ToolCall(id="a", name="x"), ToolCall(id="b", name="y")],
        finish_reason="tool_calls",
    )
    failed = ToolResult.fail("no such file")
    only_one = [ToolCallResult(tool_name="x", args={}, result=failed)]
    messages = builder.append_tool_results([], response, only_one)
    assert messages[0]["content"] is None
    assert messages[1] == {"role": "tool", "tool_call_id": "a", "content": "no such file"}
    assert messages[2]["tool_call_id"] == "b"
    assert "not executed" in messages[2]["content"]
    assert_pairing(messages)


def test_append_plain_messages() -> None:
    builder = ContextBuilder(config())
    messages = builder.append_assistant_message([], "partial answer")
    messages = builder.append_user_message(messages, "continue")
    assert messages == [
        {"role": "assistant", "content": "partial answer"},
        {"role": "user", "content": "continue"},
    ]


async def test_built_history_is_accepted_by_the_real_adapter(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    builder = ContextBuilder(config(), tree=lambda: "main.py")
    messages = builder.build_initial("sys", "task")
    response = LLMResponse(
        tool_calls=[ToolCall(id="call_1", name="read_file", arguments={"path": "main.py"})],
        finish_reason="tool_calls",
    )
    messages = builder.append_tool_results(
        messages, response, [tool_result("print(1)", call_id="call_1")]
    )
    scripted.add(llm.config.model, text("done"))
    answer = await llm.completion(messages)
    assert answer.content == "done"
    sent = scripted.requests_for(llm.config.model)[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["tool_calls"][0]["id"] == sent[3]["tool_call_id"] == "call_1"
    assert json.loads(sent[2]["tool_calls"][0]["function"]["arguments"]) == {"path": "main.py"}


# ---------------------------------------------------------------- level 2


class _FixedSummary:
    """Answers every summarisation request with the same text (shaping tests only)."""

    def __init__(self, summary: str = "did things") -> None:
        self.summary = summary
        self.calls = 0

    async def completion(
        self, messages: list[Message], tools: list[Message] | None = None
    ) -> LLMResponse:
        self.calls += 1
        return LLMResponse(content=self.summary)


async def test_level2_zero_disables() -> None:
    messages = history(30)
    fake = _FixedSummary()
    out = await ContextManager(config(summarize_after_steps=0)).maybe_compress(messages, fake)
    assert out is messages and fake.calls == 0


async def test_level2_below_threshold_unchanged() -> None:
    messages = history(8)
    fake = _FixedSummary()
    manager = ContextManager(config(summarize_after_steps=8, keep_recent_steps=4))
    assert await manager.maybe_compress(messages, fake) is messages
    assert fake.calls == 0


async def test_level2_summarises_through_the_real_adapter(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    messages = history(9, calls=2)
    scripted.add(llm.config.model, text("Read f1..f5; nothing changed yet; next: edit main.py."))
    manager = ContextManager(config(summarize_after_steps=8, keep_recent_steps=4))

    out = await manager.maybe_compress(messages, llm)

    assert out[:2] == messages[:2]
    assert out[2] == {
        "role": "assistant",
        "content": f"{SUMMARY_PREFIX}\nRead f1..f5; nothing changed yet; next: edit main.py.",
    }
    assert out[3:] == history(9, calls=2)[2 + 5 * 3 :]  # steps 6..9, each whole
    assert tool_exchange_count(out) == 4
    assert_pairing(out)

    # The summary is asked for at the end of the conversation as it stands, so the
    # request extends the previous one and the provider's prompt cache serves it.
    request = scripted.requests_for(llm.config.model)[-1].body
    assert "tools" not in request
    *prefix, ask = request["messages"]
    assert len(prefix) == len(messages)
    assert prefix[:2] == messages[:2] and prefix[-1] == messages[-1]
    assert ask["role"] == "user"
    assert "files" in ask["content"] and "remains" in ask["content"]
    assert "plan" in ask["content"]


async def test_level2_over_the_limit_sends_a_bounded_transcript(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    messages = history(9, calls=2, size=400)
    scripted.add(llm.config.model, text("short summary"))
    manager = ContextManager(
        config(summarize_after_steps=8, keep_recent_steps=4, max_context_tokens=500)
    )

    out = await manager.maybe_compress(messages, llm)

    assert out[2]["content"] == f"{SUMMARY_PREFIX}\nshort summary"
    request = scripted.requests_for(llm.config.model)[-1].body
    instructions, transcript = request["messages"]
    assert "files" in instructions["content"] and "remains" in instructions["content"]
    assert "refactor main.py" in transcript["content"]
    assert '{"path": "f5.py"}' in transcript["content"]
    assert '{"path": "f6.py"}' not in transcript["content"]


async def test_level2_keeps_later_user_messages_and_resummarises(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    messages = history(3)
    messages += [
        {"role": "assistant", "content": "Half an answer"},
        {"role": "user", "content": "Also update the README"},
    ]
    for step in range(4, 8):
        messages += exchange(step)
    scripted.add(llm.config.model, text("first summary"), text("second summary"))
    manager = ContextManager(config(summarize_after_steps=4, keep_recent_steps=2))

    once = await manager.maybe_compress(messages, llm)
    assert [m["content"] for m in once[2:4]] == [
        f"{SUMMARY_PREFIX}\nfirst summary",
        "Also update the README",
    ]
    assert tool_exchange_count(once) == 2
    assert_pairing(once)

    grown = once + exchange(8) + exchange(9) + exchange(10)
    twice = await manager.maybe_compress(grown, llm)
    assert twice[2]["content"] == f"{SUMMARY_PREFIX}\nsecond summary"
    assert twice[3] == {"role": "user", "content": "Also update the README"}
    assert tool_exchange_count(twice) == 2
    # The earlier summary is part of what the second one condenses.
    request = scripted.requests_for(llm.config.model)[-1].body["messages"]
    assert "first summary" in json.dumps(request)


async def test_level2_model_error_returns_originals(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    messages = history(12)
    scripted.add(llm.config.model, error(500, "boom"))
    manager = ContextManager(config(summarize_after_steps=8))
    assert await manager.maybe_compress(messages, llm) is messages


async def test_level2_empty_summary_returns_originals(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    messages = history(12)
    scripted.add(llm.config.model, text("   "))
    manager = ContextManager(config(summarize_after_steps=8))
    assert await manager.maybe_compress(messages, llm) is messages


async def test_level2_keep_zero_still_keeps_the_latest_exchange() -> None:
    messages = history(5)
    out = await ContextManager(config(summarize_after_steps=2, keep_recent_steps=0)).maybe_compress(
        messages, _FixedSummary()
    )
    assert out[3:] == exchange(5)
    assert_pairing(out)


def random_history(rng: random.Random) -> list[Message]:
    messages: list[Message] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
    ]
    for step in range(rng.randint(0, 25)):
        kind = rng.random()
        if kind < 0.75:
            messages += exchange(step, calls=rng.randint(1, 4), size=rng.randint(0, 400))
        elif kind < 0.9:
            messages += [
                {"role": "assistant", "content": "cut off " * rng.randint(1, 30)},
                {"role": "user", "content": "continue"},
            ]
        else:
            messages.append({"role": "user", "content": "one more thing"})
    return messages


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    after=st.integers(min_value=1, max_value=10),
    keep=st.integers(min_value=0, max_value=6),
)
async def test_level2_never_splits_a_call_from_its_results(
    seed: int, after: int, keep: int
) -> None:
    messages = random_history(random.Random(seed))
    manager = ContextManager(config(summarize_after_steps=after, keep_recent_steps=keep))
    out = await manager.maybe_compress(messages, _FixedSummary())
    assert_pairing(out)
    assert out[:2] == messages[:2]
    if out is not messages:
        assert out[2]["content"].startswith(SUMMARY_PREFIX)
        assert tool_exchange_count(out) == max(keep, 1)
        users = [m for m in messages[2:] if m["role"] == "user"]
        assert [m for m in out if m["role"] == "user"][1:] == users


# ---------------------------------------------------------------- level 3


async def test_level3_zero_disables() -> None:
    messages = history(50, size=4000)
    assert await ContextManager(config(max_context_tokens=0)).enforce_window(messages) is messages


async def test_level3_under_limit_unchanged() -> None:
    messages = history(3)
    assert (
        await ContextManager(config(max_context_tokens=80000)).enforce_window(messages) is messages
    )


async def test_level3_drops_oldest_exchanges_and_marks_it() -> None:
    messages = history(10, calls=2, size=400)
    limit = estimate_tokens(messages) // 2
    out = await ContextManager(config(max_context_tokens=limit)).enforce_window(messages)

    assert estimate_tokens(out) <= limit
    assert out[:2] == messages[:2]
    marker = out[2]
    assert marker["role"] == "assistant"
    dropped = 10 - tool_exchange_count(out)
    assert marker["content"] == f"[{dropped} earlier steps were dropped to fit the context window]"
    assert out[3:] == history(10, calls=2, size=400)[2 + dropped * 3 :]
    assert_pairing(out)


async def test_level3_marker_is_updated_not_duplicated() -> None:
    manager = ContextManager(config(max_context_tokens=300))
    out = await manager.enforce_window(history(6, size=300))
    assert "dropped to fit" in out[2]["content"]
    out = await manager.enforce_window(out + exchange(7, size=300) + exchange(8, size=300))
    markers = [m for m in out if "dropped to fit" in str(m.get("content"))]
    assert len(markers) == 1
    # The count covers the steps dropped by both calls.
    assert markers[0]["content"].startswith(f"[{8 - tool_exchange_count(out)} earlier steps")
    assert_pairing(out)


async def test_level3_keeps_at_least_the_latest_exchange() -> None:
    messages = history(5, calls=3, size=5000)
    out = await ContextManager(config(max_context_tokens=10)).enforce_window(messages)
    assert out[:2] == messages[:2]
    assert out[2]["content"] == "[4 earlier steps were dropped to fit the context window]"
    assert out[3:] == exchange(5, calls=3, size=5000)


async def test_level3_summary_dropped_only_when_nothing_else_is_left() -> None:
    summary = {"role": "assistant", "content": f"{SUMMARY_PREFIX}\n" + "s" * 400}
    messages = [*history(0), summary]
    for step in range(1, 6):
        messages += exchange(step, size=400)
    estimate = estimate_tokens(messages)

    # Room for the summary once the old steps are gone: it stays.
    out = await ContextManager(config(max_context_tokens=estimate - 250)).enforce_window(messages)
    assert out[2] == summary
    assert "dropped to fit" in out[3]["content"]
    assert_pairing(out)

    # No room at all: the summary goes too, the latest exchange stays.
    out = await ContextManager(config(max_context_tokens=50)).enforce_window(messages)
    assert all(not str(m.get("content", "")).startswith(SUMMARY_PREFIX) for m in out)
    assert out[-2:] == exchange(5, size=400)
    assert "[4 earlier steps" in out[2]["content"]


async def test_level3_drops_plain_turns_as_pairs() -> None:
    messages = history(1, size=2000)
    messages += [
        {"role": "assistant", "content": "a" * 2000},
        {"role": "user", "content": "continue"},
    ]
    messages += exchange(2, size=100)
    out = await ContextManager(config(max_context_tokens=400)).enforce_window(messages)
    assert out[3:] == exchange(2, size=100)
    assert out[2]["content"].startswith("[2 earlier steps")


async def test_level3_uses_the_given_token_counter() -> None:
    seen: list[int] = []

    async def per_message(messages: list[Message]) -> int:
        seen.append(len(messages))
        return 100 * len(messages)

    out = await ContextManager(
        config(max_context_tokens=900), token_counter=per_message
    ).enforce_window(history(5))
    assert seen  # consulted instead of the chars/4 estimate
    assert len(out) * 100 <= 900
    assert_pairing(out)


async def test_level3_with_the_adapters_token_counter(
    scripted: ScriptedModelServer, llm: LiteLLMAdapter
) -> None:
    scripted.add(llm.config.model, text("ok"))
    await llm.completion([{"role": "user", "content": "hi"}])  # litellm is loaded now
    messages = history(12, size=800)
    limit = await llm.count_tokens(messages) // 3
    out = await ContextManager(config(max_context_tokens=limit), llm.count_tokens).enforce_window(
        messages
    )
    assert await llm.count_tokens(out) <= limit
    assert out[:2] == messages[:2]
    assert_pairing(out)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), limit=st.integers(1, 4000))
def test_level3_property_pairing_and_head(seed: int, limit: int) -> None:
    messages = random_history(random.Random(seed))
    out = asyncio.run(ContextManager(config(max_context_tokens=limit)).enforce_window(messages))
    assert_pairing(out)
    assert out[:2] == messages[:2]
    originals = [m for m in out[2:] if "dropped to fit" not in str(m.get("content"))]
    # What remains is the original history minus whole units, in order.
    it = iter(messages[2:])
    assert all(any(m is orig for orig in it) for m in originals)
    if out is not messages and estimate_tokens(out) > limit:
        # Over the limit only when nothing but the protected tail is left.
        assert tool_exchange_count(out) <= 1


# ------------------------------------------------- cache-friendly policy (water marks)


def _is_extension(before: list[Message], after: list[Message]) -> bool:
    return after[: len(before)] == before


async def _long_session(limit: int, steps: int) -> tuple[list[list[Message]], int, _FixedSummary]:
    """What the model would be sent at each step of a long session, and the number of
    steps whose request does not extend the previous one."""
    manager = ContextManager(config(max_context_tokens=limit))
    summariser = _FixedSummary("Task: refactor main.py. Plan: read then edit. Files: main.py.")
    messages = history(0)
    sent: list[list[Message]] = []
    breaks = 0
    for step in range(1, steps + 1):
        grown = messages + exchange(step, size=600)
        messages = await manager.enforce_window(await manager.maybe_compress(grown, summariser))
        if sent and not _is_extension(sent[-1], messages):
            breaks += 1
        sent.append(messages)
    return sent, breaks, summariser


async def test_policy_keeps_the_prefix_byte_stable_between_compactions() -> None:
    sent, breaks, summariser = await _long_session(limit=4000, steps=45)
    # 45 steps of ~160 tokens each pass a 4000-token limit about twice; each pass
    # costs one compaction, never one trim per step.
    assert 1 <= breaks <= 3
    assert breaks == summariser.calls
    assert (len(sent) - 1 - breaks) / (len(sent) - 1) >= 0.9


async def test_policy_compacts_in_one_block_down_to_the_low_water_mark() -> None:
    limit = 4000
    manager = ContextManager(config(max_context_tokens=limit))
    messages = history(40, size=600)
    assert _default_estimate_tokens(messages) > limit * 0.8
    out = await manager.maybe_compress(messages, _FixedSummary())
    assert out[2]["content"].startswith(SUMMARY_PREFIX)
    assert _default_estimate_tokens(out) <= limit * 0.4
    assert_pairing(out)
    assert out[:2] == messages[:2]  # the system prompt and the task stay, byte for byte


async def test_policy_never_exceeds_the_limit() -> None:
    sent, _, _ = await _long_session(limit=4000, steps=60)
    assert max(_default_estimate_tokens(m) for m in sent) <= 4000


async def test_policy_below_the_high_water_mark_changes_nothing() -> None:
    messages = history(5, size=100)
    summariser = _FixedSummary()
    manager = ContextManager(config(max_context_tokens=80000))
    assert await manager.maybe_compress(messages, summariser) is messages
    assert await manager.enforce_window(messages) is messages
    assert summariser.calls == 0


def _default_estimate_tokens(messages: list[Message]) -> int:
    return estimate_tokens(messages)  # what the manager counts with when given no counter
