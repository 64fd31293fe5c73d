"""Token counts with tiktoken alone: the same numbers as litellm's counter, without litellm."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from agentls.agent.llm._litellm import import_litellm_sync
from agentls.agent.llm.tokens import count_message_tokens, encoding_name

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent. " * 20},
    {"role": "user", "content": "fix the bug in app.py, 日本語 too — “quoted”"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "app.py"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "def f():\n    return 1\n" * 30},
    {"role": "user", "content": [{"type": "text", "text": "and <|endoftext|> stays text"}]},
]


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-5-mini", "o3", "gpt-4", "claude-3-5-sonnet"])
def test_counts_agree_with_litellm(model: str) -> None:
    litellm = import_litellm_sync()
    expected = litellm.token_counter(model=model, messages=CONVERSATION)
    assert count_message_tokens(f"openai/{model}", CONVERSATION) == expected


def test_encodings_by_model_family() -> None:
    assert encoding_name("openai/gpt-4.1-mini") == "o200k_base"
    assert encoding_name("azure/o4-mini") == "o200k_base"
    assert encoding_name("anthropic/claude-sonnet-4") == "cl100k_base"


def test_counting_never_imports_litellm_and_works_offline() -> None:
    code = (
        "import sys\n"
        "from agentls.agent.llm.tokens import count_message_tokens\n"
        "n = count_message_tokens('gpt-5', [{'role': 'user', 'content': 'hello world'}])\n"
        "assert n and n > 3, n\n"
        "assert 'litellm' not in sys.modules\n"
        "print(n)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    # No proxy, no network: the encoding must come from the files shipped with litellm.
    env.update({"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"})
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 3
