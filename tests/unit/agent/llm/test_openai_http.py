"""``openai_http``: which configs it serves, that its calls never import litellm, and that
what it reads from litellm's list file (prices, model facts) is what litellm answers.

The adapter's behaviour on this path (streaming, tool calls, retries, errors) is checked by
every test of test_adapter_calls.py and test_adapter_failures.py, which run on both clients.
litellm is imported in child processes here: the point is what happens without it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import adapter_for, openai_http


@pytest.mark.parametrize(
    ("config", "served"),
    [
        (LLMConfig(model="openai/qwen", api_base="http://127.0.0.1:1234/v1"), True),
        (LLMConfig(model="gpt-4o", mode="proxy", api_base="http://proxy:4000"), True),
        (LLMConfig(model="openai/gpt-4o"), False),  # no api_base: litellm resolves it
        (LLMConfig(model="anthropic/claude-sonnet-4-5"), False),
        (LLMConfig(model="ollama/llama3", api_base="http://127.0.0.1:11434"), False),
    ],
)
def test_openai_compatible_endpoints_are_served_without_litellm(
    config: LLMConfig, served: bool
) -> None:
    assert openai_http.speaks_openai(config) is served
    assert adapter_for(config).uses_litellm is not served


def test_the_variable_sends_every_call_through_litellm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(openai_http.CLIENT_VARIABLE, "litellm")
    config = LLMConfig(model="openai/qwen", api_base="http://127.0.0.1:1234/v1")
    assert not openai_http.speaks_openai(config)
    assert adapter_for(config).uses_litellm


def test_the_model_name_goes_without_its_provider_prefix() -> None:
    assert openai_http.wire_model("openai/qwen2.5-coder:7b") == "qwen2.5-coder:7b"
    assert openai_http.wire_model("litellm_proxy/fast") == "fast"


WITHOUT_LITELLM = """
import asyncio, json, sys
from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import LLMResponse, adapter_for
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

async def main():
    with ScriptedModelServer() as server:
        server.add("m", text("Hello!", usage={"prompt_tokens": 1000, "completion_tokens": 10}))
        server.add("gpt-4o", tool_call("read_file", {"path": "a.py"}))
        llm = adapter_for(LLMConfig(model="openai/m", api_base=server.api_base))
        facts = await llm.check()
        # Before any answer: a count never starts loading litellm's counter.
        count = await llm.count_tokens([{"role": "user", "content": "hi"}])
        items = [i async for i in llm.completion_stream([{"role": "user", "content": "hi"}])]
        priced = adapter_for(LLMConfig(model="openai/gpt-4o", api_base=server.api_base))
        gpt_facts = await priced.check()
        answer = await priced.completion([{"role": "user", "content": "hi"}])
    final = items[-1]
    assert isinstance(final, LLMResponse)
    print(json.dumps({
        "litellm": "litellm" in sys.modules,
        "text": final.content,
        "facts": facts.model_dump() if facts else None,
        "gpt_facts": gpt_facts.model_dump() if gpt_facts else None,
        "cost": answer.usage.get("cost") if answer.usage else None,
        "calls": [c.name for c in answer.tool_calls],
        "count": count,
    }))

asyncio.run(main())
"""


def test_a_run_of_calls_never_imports_litellm() -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-c", WITHOUT_LITELLM], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["litellm"] is False
    assert out["text"] == "Hello!" and out["calls"] == ["read_file"]
    assert out["facts"] is None  # a local model litellm does not list
    assert out["gpt_facts"]["tools"] is True and out["gpt_facts"]["context_window"] > 0
    assert out["cost"] > 0  # priced from litellm's list file
    assert out["count"] > 0  # estimated: litellm's counter is not loaded


SAME_ANSWERS = """
import json, os
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
from agentls.agent.llm import cost_map
from agentls.agent.llm._litellm import import_litellm_sync
from agentls.agent.llm.model_facts import facts_of
from agentls.agent.llm.openai_http import client

litellm = import_litellm_sync()
http = client()
chat = [k for k, v in cost_map.whole_list().items()
        if v.get("litellm_provider") == "openai" and v.get("mode") == "chat"]
models = [p + k for k in chat for p in ("openai/", "litellm_proxy/")] + ["openai/no-such-model"]
differ = []
for model in models:
    for prompt in (1000, 300_000):
        try:
            ref = litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=50)
        except Exception:
            ref = None
        try:
            mine = http.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=50)
        except Exception:
            mine = None
        if (ref is None) != (mine is None) or (
            ref is not None and any(abs(a - b) > 1e-12 for a, b in zip(ref, mine))
        ):
            differ.append(["cost", model, prompt, ref, mine])
    ref_facts, my_facts = facts_of(litellm, model), facts_of(http, model)
    if ref_facts != my_facts:
        differ.append(["facts", model, str(ref_facts), str(my_facts)])
print(json.dumps({"models": len(models), "differ": differ[:20]}))
"""


def test_prices_and_facts_from_the_file_are_litellms() -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-c", SAME_ANSWERS], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["models"] > 50
    assert out["differ"] == []


@pytest.mark.parametrize(
    ("url", "proxy", "verified"),
    [
        ("http://127.0.0.1:1234/v1/chat/completions", None, False),
        ("http://models.lan:8000/v1/chat/completions", None, False),
        ("https://api.example.com/v1/chat/completions", None, True),
        ("https://127.0.0.1:1234/v1/chat/completions", None, True),
        # Through a proxy, even a plain URL may reach a TLS connection (to the proxy).
        ("http://127.0.0.1:1234/v1/chat/completions", "https://proxy.lan:3128", True),
    ],
)
async def test_certificates_are_checked_wherever_tls_can_happen(
    url: str, proxy: str | None, verified: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a pool that can never speak TLS skips loading the certificate store."""
    import ssl

    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ALL_PROXY", raising=False)
    if proxy is not None:
        monkeypatch.setenv("HTTP_PROXY", proxy)
    http = openai_http.OpenAIHttp()
    pool = http._client(url)
    try:
        # httpx keeps the context it made from ``verify`` on its transport's pool.
        context = pool._transport._pool._ssl_context  # type: ignore[attr-defined]
        assert (context.verify_mode == ssl.CERT_REQUIRED) is verified
        assert http._client(url) is pool
    finally:
        await pool.aclose()
