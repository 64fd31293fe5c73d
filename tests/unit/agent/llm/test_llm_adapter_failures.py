"""Retries, timeouts, broken streams and key handling, over real litellm."""

from __future__ import annotations

import hashlib
import logging

import pytest
from llm_helpers import KEY_ENV, TOOLS, USER, MakeLLM, collect

from agentls.agent.llm import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMStreamInterrupted,
    LLMTransientError,
    StreamChunk,
)
from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    dropped,
    error,
    rate_limited,
    text,
    tool_call,
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


async def test_stream_dropped_after_text_raises_a_clear_error(
    make_llm: MakeLLM, scripted: ScriptedModelServer
) -> None:
    llm, name = make_llm(retries=2)
    scripted.add(name, dropped("Hello there, this answer is cut", after_chunks=3), text("x"))
    seen: list[str] = []
    with pytest.raises(LLMStreamInterrupted) as info:
        async for item in llm.completion_stream(USER):
            if isinstance(item, StreamChunk):
                seen.append(item.data)
    assert seen, "text before the break reaches the caller"
    assert info.value.partial_text == "".join(seen)
    assert "broke off" in str(info.value) and "not retried" in str(info.value)
    # Text was already shown, so the stream is not replayed.
    assert len(scripted.requests_for(name)) == 1


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
