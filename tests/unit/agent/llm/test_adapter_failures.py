"""Retries, timeouts, broken streams and key handling, over real litellm."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import pytest
from llm_helpers import KEY_ENV, TOOLS, USER, MakeLLM, collect

from agentls.agent.llm import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMResponse,
    LLMStreamInterrupted,
    LLMTransientError,
    StreamChunk,
    StreamRestart,
)
from agentls.agent.llm.scripted_server import (
    CutHow,
    CutPoint,
    ScriptedModelServer,
    Turn,
    call,
    cut,
    error,
    rate_limited,
    text,
    tool_call,
    tool_calls,
)


@pytest.mark.parametrize("stream", [True, False])
async def test_rate_limit_then_success_is_retried(
    make_llm: MakeLLM, scripted: ScriptedModelServer, stream: bool
) -> None:
    llm, name = make_llm(retries=2)
    scripted.add(name, rate_limited(), error(503, "overloaded"), text("ok"))
    if stream:
        _, final = await collect(llm.completion_stream(USER))
    else:
        final = await llm.completion(USER)
    assert final.content == "ok"
    assert len(scripted.requests_for(name)) == 3


@pytest.mark.parametrize("stream", [True, False])
async def test_server_errors_raise_after_one_plus_retries_attempts(
    make_llm: MakeLLM, scripted: ScriptedModelServer, stream: bool
) -> None:
    llm, name = make_llm(retries=2)
    scripted.add(name, *[error(500, "upstream exploded")] * 4)
    with pytest.raises(LLMTransientError) as info:
        if stream:
            await collect(llm.completion_stream(USER))
        else:
            await llm.completion(USER)
    assert len(scripted.requests_for(name)) == 3
    message = str(info.value)
    assert "HTTP 500" in message and "upstream exploded" in message
    assert "after 3 attempts" in message and "openai" in message
    assert info.value.status_code == 500 and info.value.attempts == 3


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, LLMAuthError),
        (403, LLMAuthError),
        (400, LLMBadRequestError),
        (404, LLMBadRequestError),
    ],
)
async def test_client_errors_are_not_retried(
    make_llm: MakeLLM, scripted: ScriptedModelServer, status: int, kind: type[LLMError]
) -> None:
    llm, name = make_llm(retries=3)
    scripted.add(name, error(status, f"refused with {status}"), text("never reached"))
    with pytest.raises(kind) as info:
        await collect(llm.completion_stream(USER))
    assert len(scripted.requests_for(name)) == 1
    assert f"HTTP {status}" in str(info.value)
    assert f"refused with {status}" in str(info.value)


async def test_provider_message_is_cut_to_200_characters(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm(retries=0)
    scripted.add(name, error(400, "x" * 1000))
    with pytest.raises(LLMBadRequestError) as info:
        await llm.completion(USER)
    assert "x" * 150 in str(info.value)
    assert "x" * 201 not in str(info.value)


async def test_timeout_is_transient_and_retried(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm(timeout=1, retries=1)
    scripted.add(name, text("late", delay=1.6), text("late again", delay=1.6))
    with pytest.raises(LLMTransientError) as info:
        await collect(llm.completion_stream(USER))
    assert "timed out" in str(info.value)
    assert len(scripted.requests_for(name)) == 2


CUT_POINTS = ["text", "arguments", "between_calls", "before_finish"]


def two_calls(**options: Any) -> Turn:
    return tool_calls(
        call("read_file", {"path": "a.py"}),
        call("write_file", {"path": "b.py"}),
        text="Reading both files now.",
        **options,
    )


@pytest.mark.parametrize("how", ["drop", "close"])
@pytest.mark.parametrize("at", CUT_POINTS)
async def test_a_cut_stream_is_retried_and_the_text_declared_void(
    make_llm: MakeLLM, scripted: ScriptedModelServer, at: CutPoint, how: CutHow
) -> None:
    llm, name = make_llm(retries=1)
    scripted.add(name, cut(two_calls(), at, how), two_calls())
    items = [item async for item in llm.completion_stream(USER, TOOLS)]
    restarts = [i for i in items if isinstance(i, StreamRestart)]
    assert len(restarts) == 1 and restarts[0].attempt == 2
    after = items[items.index(restarts[0]) + 1 :]
    assert "".join(i.data for i in after if isinstance(i, StreamChunk)) == (
        "Reading both files now."
    )
    final = items[-1]
    assert isinstance(final, LLMResponse) and final.finish_reason == "tool_calls"
    assert [c.arguments for c in final.tool_calls] == [{"path": "a.py"}, {"path": "b.py"}]
    assert len(scripted.requests_for(name)) == 2


@pytest.mark.parametrize("how", ["drop", "close"])
@pytest.mark.parametrize("at", CUT_POINTS)
async def test_a_stream_cut_on_every_attempt_never_becomes_a_response(
    make_llm: MakeLLM, scripted: ScriptedModelServer, at: CutPoint, how: CutHow
) -> None:
    llm, name = make_llm(retries=1)
    scripted.add(name, cut(two_calls(), at, how), cut(two_calls(), at, how), text("x"))
    items: list[Any] = []
    with pytest.raises(LLMStreamInterrupted) as info:
        async for item in llm.completion_stream(USER, TOOLS):
            items.append(item)
    assert not any(isinstance(i, LLMResponse) for i in items)
    message = str(info.value)
    assert "was cut before its end on each of 2 attempts" in message
    assert ("without a finish reason" if how == "close" else "connection broke") in message
    assert len(scripted.requests_for(name)) == 2


async def test_a_stream_cut_before_any_text_restarts_silently(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm(retries=1)
    scripted.add(name, cut(tool_call("read_file", {"path": "a.py"}), "arguments", "close"))
    scripted.add(name, tool_call("read_file", {"path": "a.py"}))
    texts, final = await collect(llm.completion_stream(USER, TOOLS))
    assert texts == [] and final.tool_calls[0].arguments == {"path": "a.py"}


async def test_stream_dropped_before_any_text_is_retried(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm(retries=1)
    scripted.add(
        name,
        tool_call("read_file", {"path": "a.py"}, drop_after_chunks=2),
        tool_call("read_file", {"path": "a.py"}),
    )
    texts, final = await collect(llm.completion_stream(USER, TOOLS))
    assert texts == [] and final.tool_calls[0].arguments == {"path": "a.py"}
    assert len(scripted.requests_for(name)) == 2


async def test_empty_queue_fails_loudly(make_llm: MakeLLM, scripted: ScriptedModelServer) -> None:
    llm, name = make_llm(retries=0)
    with pytest.raises(LLMTransientError, match=f"no turn left for model {name}"):
        await llm.completion(USER)


async def test_key_is_read_at_call_time_and_only_its_hash_is_recorded(
    make_llm: MakeLLM, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm, name = make_llm()
    scripted.add(name, text("one"), text("two"))
    monkeypatch.setenv(KEY_ENV, "sk-first-key-0001")
    await llm.completion(USER)
    monkeypatch.setenv(KEY_ENV, "sk-second-key-0002")
    await collect(llm.completion_stream(USER))
    first, second = scripted.requests_for(name)
    assert first.auth_present and second.auth_present
    assert first.auth_sha256 == hashlib.sha256(b"sk-first-key-0001").hexdigest()[:16]
    assert second.auth_sha256 == hashlib.sha256(b"sk-second-key-0002").hexdigest()[:16]
    assert "authorization" not in first.headers


async def test_key_never_appears_in_errors_or_logs(
    make_llm: MakeLLM,
    scripted: ScriptedModelServer,
    api_key: str,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    llm, name = make_llm(retries=1)
    # Providers do echo keys back ("Incorrect API key provided: sk-...").
    scripted.add(name, error(500, f"bad gateway for {api_key}"))
    scripted.add(name, error(401, f"Incorrect API key provided: {api_key}"))
    with caplog.at_level(logging.DEBUG), pytest.raises(LLMAuthError) as info:
        await llm.completion(USER)
    message = str(info.value)
    assert api_key not in message
    assert KEY_ENV in message and "refused" in message
    assert api_key not in caplog.text
    assert len(scripted.requests_for(name)) == 2
    # litellm's "Give Feedback / Get Help" banner would corrupt an LSP stdio stream.
    assert capfd.readouterr().out == ""


async def test_unset_key_variable_sends_a_placeholder_to_a_local_server(
    make_llm: MakeLLM, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm, name = make_llm()
    monkeypatch.delenv(KEY_ENV)
    scripted.add(name, error(401, "who are you"))
    with pytest.raises(LLMAuthError, match=f"\\${KEY_ENV} is not set"):
        await llm.completion(USER)
