"""What a run learns before its first model call (``LiteLLMAdapter.check``): no key, an
unknown id, a model without tool calling, a local server that is down; and that a call
made with no key at all fails once, as a missing key, never retried."""

from __future__ import annotations

import socket

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import LiteLLMAdapter, LLMAuthError
from agentls.agent.llm.errors import LLMSetupError
from agentls.agent.llm.local_servers import reached_itself
from agentls.agent.llm.scripted_server import ScriptedModelServer, text

KEY_VARIABLES = ("OPENAI_API_KEY", "LITELLM_API_KEY", "OPENAI_ADMIN_KEY")


@pytest.fixture
def no_key(scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """No key anywhere, and OpenAI's calls sent to the scripted server (litellm reads
    OPENAI_API_BASE), so that a call made anyway would be seen there."""
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", scripted.api_base)
    scripted.add("alice", text("hello"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_no_key_is_said_before_any_call(no_key: None, scripted: ScriptedModelServer) -> None:
    adapter = LiteLLMAdapter(LLMConfig(model="openai/alice"))
    with pytest.raises(LLMSetupError) as raised:
        await adapter.check()
    message = str(raised.value)
    assert "$OPENAI_API_KEY" in message and "$LITELLM_API_KEY (llm.api_key_env)" in message
    assert "llm.api_base" in message and "the editor's models" in message
    assert "`agentls models`" in message
    assert scripted.requests == []


# litellm's path for a call without a key builds pydantic types that warn about themselves.
@pytest.mark.filterwarnings("ignore:Items .* are using the `ReadOnly` qualifier")
async def test_a_call_made_with_no_key_fails_once_as_a_missing_key(
    no_key: None, scripted: ScriptedModelServer
) -> None:
    adapter = LiteLLMAdapter(LLMConfig(model="openai/alice", retries=2))
    with pytest.raises(LLMAuthError) as raised:
        await adapter.completion([{"role": "user", "content": "hi"}])
    assert raised.value.attempts == 1
    assert raised.value.status_code is None
    assert str(raised.value).startswith("no API key for openai/alice: $LITELLM_API_KEY")
    assert scripted.requests == []


async def test_the_configured_variable_is_enough(
    no_key: None, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITELLM_API_KEY", "sk-test")
    assert await LiteLLMAdapter(LLMConfig(model="openai/alice")).check() is None


async def test_an_unknown_id_names_close_matches() -> None:
    with pytest.raises(LLMSetupError) as raised:
        await LiteLLMAdapter(LLMConfig(model="gpt-4oo")).check()
    message = str(raised.value)
    assert message.startswith("unknown model 'gpt-4oo': litellm does not know it")
    assert "did you mean gpt-4o" in message
    assert "`agentls models` lists the models you can use" in message


async def test_a_model_litellm_knows_without_tool_calling_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test")
    with pytest.raises(LLMSetupError, match="cannot call tools"):
        await LiteLLMAdapter(LLMConfig(model="deepseek/deepseek-reasoner")).check()


async def test_a_model_litellm_does_not_know_is_allowed(
    adapter_for: object, scripted: ScriptedModelServer
) -> None:
    adapter = LiteLLMAdapter(LLMConfig(model="openai/alice", api_base=scripted.api_base))
    assert await adapter.check() is None
    assert scripted.requests == []


async def test_known_facts_come_back_for_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    facts = await LiteLLMAdapter(LLMConfig(model="openai/gpt-4o-mini")).check()
    assert facts is not None and facts.tools is True and facts.images is True


async def test_a_local_server_that_is_down_is_one_line() -> None:
    base = f"http://127.0.0.1:{_free_port()}/v1"
    with pytest.raises(LLMSetupError) as raised:
        await LiteLLMAdapter(LLMConfig(model="openai/alice", api_base=base)).check()
    assert str(raised.value).startswith(
        f"the model server at {base} does not answer (connection refused): start it"
    )
    assert "\n" not in str(raised.value)


def test_a_connection_that_reached_only_itself_is_no_server() -> None:
    # What a busy machine may do to a probe of a free port: the connecting socket gets
    # that very port and TCP connects it to itself, as a socket bound to a port and
    # connected to it does here every time.
    with socket.socket() as alone:
        alone.bind(("127.0.0.1", 0))
        alone.connect(alone.getsockname())
        assert reached_itself(alone)
    with socket.socket() as listener, socket.socket() as client:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client.connect(listener.getsockname())
        assert not reached_itself(client)
    assert not reached_itself(None)
