"""OffloopLLM: the real adapter on a background loop, against the scripted server."""

from __future__ import annotations

import asyncio
import threading

import pytest
from llm_helpers import FAST_RETRIES, KEY_ENV, TEST_KEY

from agent.config import LLMConfig
from agent.llm import LiteLLMAdapter, LLMError, LLMResponse, StreamChunk
from agent.llm.offloop import OffloopLLM
from agent.llm.scripted_server import ScriptedModelServer, error, text, tool_call

USER = [{"role": "user", "content": "hi"}]


@pytest.fixture
def llm(model_server: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch) -> OffloopLLM:
    monkeypatch.setenv(KEY_ENV, TEST_KEY)
    config = LLMConfig(
        model="openai/off", api_base=model_server.api_base, api_key_env=KEY_ENV, retries=0
    )
    return OffloopLLM(LiteLLMAdapter(config, retry_policy=FAST_RETRIES))


async def test_stream_and_completion_run_on_another_thread(
    llm: OffloopLLM, model_server: ScriptedModelServer
) -> None:
    model_server.add("off", text("hello there"), tool_call("read_file", {"path": "a.py"}))
    seen_threads: set[int] = set()
    inner_stream = llm.inner.completion_stream

    def spy(*args: object) -> object:
        seen_threads.add(threading.get_ident())
        return inner_stream(*args)

    llm.inner.completion_stream = spy
    items = [item async for item in llm.completion_stream(USER)]
    assert "".join(i.data for i in items if isinstance(i, StreamChunk)) == "hello there"
    assert isinstance(items[-1], LLMResponse) and items[-1].content == "hello there"
    assert seen_threads and threading.get_ident() not in seen_threads
    response = await llm.completion(USER)
    assert response.tool_calls[0].arguments == {"path": "a.py"}
    assert llm.count_tokens(USER) > 0 and llm.config.model == "openai/off"


async def test_errors_come_back_to_the_caller(
    llm: OffloopLLM, model_server: ScriptedModelServer
) -> None:
    model_server.add("off", error(401, "bad key"), error(401, "bad key"))
    with pytest.raises(LLMError, match="401"):
        [item async for item in llm.completion_stream(USER)]
    with pytest.raises(LLMError, match="401"):
        await llm.completion(USER)


async def test_cancelling_the_caller_stops_the_stream(
    llm: OffloopLLM, model_server: ScriptedModelServer
) -> None:
    model_server.add("off", text("word " * 300, chunk_delay=0.05), text("next"))
    got_one = asyncio.Event()

    async def consume() -> None:
        async for _ in llm.completion_stream(USER):
            got_one.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_one.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the background call was stopped: the next call is served at once
    response = await asyncio.wait_for(llm.completion(USER), 30)
    assert response.content == "next"
