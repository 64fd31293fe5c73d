"""Helpers shared by the LLM adapter tests (import as ``llm_helpers``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from agentls.agent.llm import LiteLLMAdapter, LLMResponse, RetryPolicy, StreamChunk

KEY_ENV = "AGENTLS_TEST_LLM_KEY"
TEST_KEY = "sk-test-" + "a1b2c3d4" * 4

FAST_RETRIES = RetryPolicy(base_delay=0.001, max_delay=0.01)

MakeLLM = Callable[..., tuple[LiteLLMAdapter, str]]


USER = [{"role": "user", "content": "hi"}]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"the {name} tool",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
    for name in ("read_file", "write_file", "search")
]


async def collect(
    stream: AsyncIterator[StreamChunk | LLMResponse],
) -> tuple[list[str], LLMResponse]:
    """The streamed texts and the final response, checking the response comes once, last."""
    items = [item async for item in stream]
    assert items, "the stream yielded nothing"
    final = items[-1]
    assert isinstance(final, LLMResponse)
    texts = []
    for item in items[:-1]:
        assert isinstance(item, StreamChunk), f"{item!r} before the end of the stream"
        texts.append(item.data)
    return texts, final
