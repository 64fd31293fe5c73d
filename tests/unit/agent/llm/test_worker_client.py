"""ProcessLLM: the model calls in a real ``python -m agentls.agent.llm.worker`` child, against
the scripted model server, compared with the adapter in-process over litellm. The worker's
calls to the scripted server (an OpenAI-compatible endpoint) are ``openai_http``'s, so the
comparison is also one of the two paths."""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from llm_helpers import KEY_ENV, TEST_KEY

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import (
    LiteLLMAdapter,
    LLMAuthError,
    LLMBadRequestError,
    LLMResponse,
    LLMStreamInterrupted,
    LLMTransientError,
    StreamChunk,
    StreamRestart,
)
from agentls.agent.llm.models import assistant_tool_calls_message
from agentls.agent.llm.scripted_server import (
    CutHow,
    CutPoint,
    ScriptedModelServer,
    call,
    cut,
    dropped,
    error,
    rate_limited,
    text,
    tool_call,
    tool_calls,
)
from agentls.agent.llm.worker_client import (
    WORKER_COMMAND_VARIABLE,
    ModelWorker,
    ProcessLLM,
    worker_command,
)

USER = [{"role": "user", "content": "hi"}]


# One worker (and one event loop) for the module: a spawn costs ~0.5 s.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def worker() -> AsyncIterator[ModelWorker]:
    # The worker reads the key from the environment it inherits when spawned.
    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_ENV, TEST_KEY)
        worker = ModelWorker(log_level="INFO")
        await worker.start()
    yield worker
    await worker.close()


def config_for(server: ScriptedModelServer, model: str = "proc", **extra: Any) -> LLMConfig:
    return LLMConfig(
        model=f"openai/{model}",
        api_base=server.api_base,
        api_key_env=KEY_ENV,
        retries=extra.pop("retries", 0),
        **extra,
    )


@pytest.fixture
def llm(
    scripted: ScriptedModelServer, worker: ModelWorker, monkeypatch: pytest.MonkeyPatch
) -> ProcessLLM:
    monkeypatch.setenv(KEY_ENV, TEST_KEY)  # for the in-process adapter compared with it
    return ProcessLLM(config_for(scripted), worker)


async def collect(llm: Any) -> list[StreamChunk | StreamRestart | LLMResponse]:
    return [item async for item in llm.completion_stream(USER)]


def without_call_ids(items: list[Any]) -> list[Any]:
    """``items`` without the tool calls' ids (random per call) and with text pieces that
    follow one another joined (the worker sends pieces that come close together as one)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, StreamChunk) and out and isinstance(out[-1], StreamChunk):
            out[-1] = StreamChunk(data=out[-1].data + item.data)
        elif isinstance(item, list):
            out.append(without_call_ids(item))
        elif isinstance(item, LLMResponse):
            calls = [c.model_copy(update={"id": ""}) for c in item.tool_calls]
            out.append(item.model_copy(update={"tool_calls": calls}))
        else:
            out.append(item)
    return out


async def test_the_worker_starts_and_says_when_it_is_ready() -> None:
    worker = ModelWorker()
    assert worker.pid is None and not worker.is_ready  # nothing is spawned before use
    try:
        await asyncio.wait_for(worker.wait_ready(), 60)
        assert worker.is_ready and worker.pid is not None and worker.pid != os.getpid()
    finally:
        await worker.close()


async def test_stream_and_completion_match_the_adapter_in_process(
    llm: ProcessLLM, scripted: ScriptedModelServer
) -> None:
    script = (
        text("hello there, streamed in pieces", chunk_size=4),
        tool_calls(tool_call("read_file", {"path": "a.py"}), tool_call("grep", {"pattern": "x"})),
    )
    scripted.add("proc", *script)
    remote = [await collect(llm), await llm.completion(USER)]
    scripted.add("proc", *script)
    local_llm = LiteLLMAdapter(llm.config)
    local = [await collect(local_llm), await local_llm.completion(USER)]
    assert without_call_ids(remote) == without_call_ids(local)
    chunks = [i for i in remote[0] if isinstance(i, StreamChunk)]
    assert "".join(c.data for c in chunks) == "hello there, streamed in pieces"
    response = remote[1]
    assert isinstance(response, LLMResponse)
    assert [c.name for c in response.tool_calls] == ["read_file", "grep"]
    assert response.tool_calls[0].arguments == {"path": "a.py"}
    # the request reached the provider from the worker, with the key
    assert scripted.requests_for("proc")[0].body["messages"] == USER
    # Counted as the in-process adapter counts: from what the provider reported.
    assert response.usage is not None
    assert await llm.count_tokens(USER) == response.usage["prompt_tokens"]
    assert await local_llm.count_tokens(USER) == response.usage["prompt_tokens"]


async def test_calls_and_counts_for_an_openai_compatible_endpoint_never_load_litellm(
    scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, TEST_KEY)
    worker = ModelWorker()
    try:
        llm = ProcessLLM(config_for(scripted, "lean"), worker)
        scripted.add(
            "lean",
            tool_call("read_file", {"path": "a.py"}, usage={"prompt_tokens": 700}),
            text("done", usage={"prompt_tokens": 900, "completion_tokens": 3}),
        )
        conversation = list(USER)
        assert await llm.count_tokens(conversation) > 0  # an estimate before any answer
        first = await llm.completion(conversation)
        assert await llm.count_tokens(conversation) == 700
        conversation += [
            assistant_tool_calls_message(None, first.tool_calls),
            {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "x = 1\n" * 50},
        ]
        assert await llm.count_tokens(conversation) > 700
        assert [i async for i in llm.completion_stream(conversation)]
        assert await llm.count_tokens(conversation) == 900
        assert await worker.prepare(llm.config) is False  # litellm is not in the worker
    finally:
        await worker.close()


async def test_the_worker_loads_litellm_only_for_a_config_that_needs_it(
    scripted: ScriptedModelServer,
) -> None:
    worker = ModelWorker()
    try:
        # Ready without litellm; a config whose calls openai_http makes does not load it.
        assert await worker.prepare(config_for(scripted)) is False
        assert await worker.prepare(LLMConfig(model="anthropic/claude-sonnet-4-5")) is True
    finally:
        await worker.close()


async def test_pieces_close_together_come_as_one_and_a_slow_stream_piece_by_piece(
    llm: ProcessLLM, scripted: ScriptedModelServer
) -> None:
    # A piece every 0.1 ms: the server is woken a few times, not once per piece.
    words = "".join(f"w{i:03} " for i in range(200))  # litellm stops a repeating stream
    scripted.add("proc", text(words, chunk_size=5, chunk_delay=0.0001))
    fast = [i for i in await collect(llm) if isinstance(i, StreamChunk)]
    assert "".join(c.data for c in fast) == words
    assert len(fast) < 100
    # A piece every 60 ms: each is passed on as it comes, nothing waits for the next.
    scripted.add("proc", text("one two three four", chunk_size=4, chunk_delay=0.06))
    slow = [i.data for i in await collect(llm) if isinstance(i, StreamChunk)]
    assert slow == ["one ", "two ", "thre", "e fo", "ur"]


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        (error(401, "bad key"), LLMAuthError),
        (error(400, "no such parameter"), LLMBadRequestError),
        (rate_limited(), LLMTransientError),
    ],
)
async def test_errors_keep_their_class_and_message(
    llm: ProcessLLM, scripted: ScriptedModelServer, turn: Any, expected: type[Exception]
) -> None:
    scripted.add("proc", turn, turn)
    with pytest.raises(expected) as remote:
        await collect(llm)
    with pytest.raises(expected) as local:
        await collect(LiteLLMAdapter(llm.config))
    assert type(remote.value) is type(local.value)
    assert str(remote.value) == str(local.value)
    assert TEST_KEY not in str(remote.value)


async def test_a_broken_stream_reports_the_partial_text(
    llm: ProcessLLM, scripted: ScriptedModelServer
) -> None:
    scripted.add("proc", dropped("one two three four five six", after_chunks=2))
    seen: list[str] = []
    with pytest.raises(LLMStreamInterrupted, match="cut before its end") as info:
        async for item in llm.completion_stream(USER):
            if isinstance(item, StreamChunk):
                seen.append(item.data)
    assert seen and info.value.partial_text == "".join(seen)


@pytest.mark.parametrize(
    ("at", "how"), [("text", "close"), ("arguments", "drop"), ("between_calls", "close")]
)
async def test_a_cut_stream_restarts_through_the_worker(
    scripted: ScriptedModelServer, worker: ModelWorker, at: CutPoint, how: CutHow
) -> None:
    llm = ProcessLLM(config_for(scripted, retries=1), worker)
    answer = tool_calls(
        call("read_file", {"path": "a.py"}), call("read_file", {"path": "b.py"}), text="Both."
    )
    scripted.add("proc", cut(answer, at, how), answer)
    items = await collect(llm)
    restarts = [i for i in items if isinstance(i, StreamRestart)]
    assert [r.attempt for r in restarts] == [2]
    assert ("finish reason" if how == "close" else "connection broke") in restarts[0].reason
    final = items[-1]
    assert isinstance(final, LLMResponse)
    assert [c.arguments["path"] for c in final.tool_calls] == ["a.py", "b.py"]


async def test_a_stream_cut_on_every_attempt_fails_through_the_worker(
    scripted: ScriptedModelServer, worker: ModelWorker
) -> None:
    llm = ProcessLLM(config_for(scripted, retries=1), worker)
    answer = tool_call("read_file", {"path": "a.py"}, text="Reading.")
    scripted.add("proc", cut(answer, "arguments", "close"), cut(answer, "text", "close"))
    items: list[Any] = []
    with pytest.raises(LLMStreamInterrupted, match="on each of 2 attempts") as info:
        async for item in llm.completion_stream(USER):
            items.append(item)
    assert not any(isinstance(i, LLMResponse) for i in items)
    assert "none of its tool calls ran" in str(info.value)


async def test_cancelling_the_caller_stops_the_call_in_the_worker(
    llm: ProcessLLM, scripted: ScriptedModelServer
) -> None:
    scripted.add("proc", text("word " * 400, chunk_delay=0.05), text("next"))
    got_one = asyncio.Event()

    async def consume() -> None:
        async for _ in llm.completion_stream(USER):
            got_one.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_one.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The worker closed the provider's stream (it would otherwise run for 20 s more)...
    for _ in range(200):
        if scripted.abandoned("proc"):
            break
        await asyncio.sleep(0.05)
    assert scripted.abandoned("proc") == 1
    # ...and still serves the next call.
    response = await asyncio.wait_for(llm.completion(USER), 10)
    assert response.content == "next"


async def test_a_worker_that_dies_mid_stream_is_an_interrupted_stream_then_replaced(
    llm: ProcessLLM, scripted: ScriptedModelServer, worker: ModelWorker
) -> None:
    scripted.add("proc", text("word " * 400, chunk_delay=0.05), text("after"))
    seen: list[str] = []
    with pytest.raises(LLMStreamInterrupted, match="model worker process exited") as info:
        async for item in llm.completion_stream(USER):
            if isinstance(item, StreamChunk):
                seen.append(item.data)
                if len(seen) == 3:
                    assert worker.pid is not None
                    os.kill(worker.pid, signal.SIGKILL)
    assert info.value.partial_text.startswith("".join(seen[:3]))
    first_pid = None if worker.pid is None else worker.pid
    response = await asyncio.wait_for(llm.completion(USER), 60)
    assert response.content == "after"
    assert worker.pid is not None and worker.pid != first_pid


async def test_a_worker_that_dies_before_answering_is_a_transient_error(
    llm: ProcessLLM, scripted: ScriptedModelServer, worker: ModelWorker
) -> None:
    scripted.add("proc", text("late", delay=30))
    await worker.wait_ready()
    call = asyncio.create_task(llm.completion(USER))
    for _ in range(600):  # until the provider has the request (30 s at most)
        if scripted.requests_for("proc"):
            break
        await asyncio.sleep(0.05)
    assert worker.pid is not None
    os.kill(worker.pid, signal.SIGKILL)
    with pytest.raises(LLMTransientError, match="exited") as info:
        await asyncio.wait_for(call, 30)
    assert not isinstance(info.value, LLMStreamInterrupted)


async def test_worker_warnings_reach_the_parents_log(
    scripted: ScriptedModelServer,
    worker: ModelWorker,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv(KEY_ENV, TEST_KEY)
    llm = ProcessLLM(config_for(scripted, retries=1), worker)
    scripted.add("proc", rate_limited(retry_after=0.01), text("ok"))
    with caplog.at_level(logging.WARNING):
        response = await llm.completion(USER)
    assert response.content == "ok"
    retried = [r for r in caplog.records if r.name == "agentls.agent.llm.adapter"]
    assert retried and "retrying" in retried[0].getMessage()
    assert TEST_KEY not in caplog.text


async def test_concurrent_calls_each_get_their_own_answer(
    worker: ModelWorker, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, TEST_KEY)
    models = [f"m{i}" for i in range(4)]
    for name in models:
        scripted.add(name, text(f"answer of {name} " * 20, chunk_delay=0.005))
    llms = [ProcessLLM(config_for(scripted, name), worker) for name in models]
    results = await asyncio.gather(*(collect(llm) for llm in llms))
    for name, items in zip(models, results, strict=True):
        final = items[-1]
        assert isinstance(final, LLMResponse)
        assert final.content == f"answer of {name} " * 20
        assert "".join(i.data for i in items if isinstance(i, StreamChunk)) == final.content


async def test_a_closed_worker_refuses_new_calls(scripted: ScriptedModelServer) -> None:
    worker = ModelWorker()
    llm = ProcessLLM(config_for(scripted), worker)
    await worker.wait_ready()
    pid = worker.pid
    await worker.close()
    assert pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(Exception, match="closed"):
        await llm.completion(USER)


async def test_a_worker_that_dies_mid_stream_is_retried_on_a_new_one(
    scripted: ScriptedModelServer, worker: ModelWorker
) -> None:
    llm = ProcessLLM(config_for(scripted, retries=1), worker)
    scripted.add("proc", text("word " * 400, chunk_delay=0.05), text("after the restart"))
    items: list[Any] = []
    async for item in llm.completion_stream(USER):
        items.append(item)
        if len([i for i in items if isinstance(i, StreamChunk)]) == 3 and worker.pid:
            os.kill(worker.pid, signal.SIGKILL)
    restarts = [i for i in items if isinstance(i, StreamRestart)]
    assert len(restarts) == 1 and "model worker process exited" in restarts[0].reason
    after = items[items.index(restarts[0]) + 1 :]
    assert "".join(i.data for i in after if isinstance(i, StreamChunk)) == "after the restart"
    assert isinstance(items[-1], LLMResponse) and items[-1].content == "after the restart"


async def test_the_worker_command_can_be_named_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(WORKER_COMMAND_VARIABLE, raising=False)
    assert worker_command()[-2:] == ["-m", "agentls.agent.llm.worker"]
    monkeypatch.setenv(WORKER_COMMAND_VARIABLE, "  ")
    assert worker_command()[-2:] == ["-m", "agentls.agent.llm.worker"]
    monkeypatch.setenv(WORKER_COMMAND_VARIABLE, "py-spy record -o 'my profile.svg' -- python")
    assert worker_command() == ["py-spy", "record", "-o", "my profile.svg", "--", "python"]


async def test_a_worker_started_by_the_named_command_gets_the_workers_arguments(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    seen = tmp_path / "argv.txt"
    script = f"import sys; open({str(seen)!r}, 'w').write(' '.join(sys.argv[1:])); sys.exit(3)"
    monkeypatch.setenv(WORKER_COMMAND_VARIABLE, f"{sys.executable} -c {shlex.quote(script)}")
    worker = ModelWorker(log_level="INFO")
    try:
        with pytest.raises(LLMTransientError, match="exited while starting"):
            await worker.wait_ready()
    finally:
        await worker.close()
    assert seen.read_text() == "--log-level INFO"
