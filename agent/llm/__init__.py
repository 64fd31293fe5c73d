"""Model access: the ``LLM`` protocol, its litellm adapter, and the scripted test server.

Importing this package never imports litellm (see ``_litellm``): the adapter loads it
in a worker thread on first use, or earlier through ``warm_up()``; ``adapter_for`` gives
an OpenAI-compatible endpoint an adapter that never needs it for a call (``openai_http``).
"""

from agentls.agent.llm._litellm import warm_up
from agentls.agent.llm.adapter import LiteLLMAdapter, adapter_for
from agentls.agent.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMStreamInterrupted,
    LLMTransientError,
)
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart, ToolCall, Usage
from agentls.agent.llm.protocol import LLM
from agentls.agent.llm.retry import RetryPolicy

__all__ = [
    "LLM",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMError",
    "LLMResponse",
    "LLMStreamInterrupted",
    "LLMTransientError",
    "LiteLLMAdapter",
    "RetryPolicy",
    "StreamChunk",
    "StreamRestart",
    "ToolCall",
    "Usage",
    "adapter_for",
    "warm_up",
]
