"""Proxy mode against a real LiteLLM proxy, in front of the scripted model server.

The proxy (``litellm[proxy]``, ~740 MB) lives in its own venv under ``.cache/``, made by
``scripts/ensure_litellm_proxy.sh``; the first run installs it. Set
``AGENTLS_SKIP_PROXY_TESTS=1`` to skip these tests.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import LiteLLMAdapter, LLMAuthError, LLMResponse, RetryPolicy, StreamChunk
from agentls.agent.llm.scripted_server import ScriptedModelServer, call, text, tool_calls

pytestmark = [
    pytest.mark.slow,
    # The first run installs the proxy venv, and a loaded machine starts it slowly.
    pytest.mark.timeout(900),
    pytest.mark.skipif(
        os.environ.get("AGENTLS_SKIP_PROXY_TESTS") == "1",
        reason="AGENTLS_SKIP_PROXY_TESTS=1: the LiteLLM proxy tests were asked to be skipped",
    ),
]

REPO = Path(__file__).resolve().parents[2]
ALIAS = "scripted-alias"
UPSTREAM_MODEL = "proxied"  # the scripted server's queue behind the alias
KEY_ENV = "AGENTLS_TEST_PROXY_KEY"
STARTUP_SECONDS = 180

USER = [{"role": "user", "content": "hi"}]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


@dataclass(frozen=True)
class Proxy:
    url: str
    master_key: str
    upstream: ScriptedModelServer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_proxy_binary() -> Path:
    result = subprocess.run(
        ["bash", str(REPO / "scripts" / "ensure_litellm_proxy.sh")],
        capture_output=True,
        text=True,
        timeout=800,
    )
    if result.returncode != 0:
        pytest.fail(f"ensure_litellm_proxy.sh failed:\n{result.stderr[-3000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def wait_until_live(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the LiteLLM proxy exited early:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health/liveliness", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    pytest.fail(f"the LiteLLM proxy was not live in {STARTUP_SECONDS}s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    binary = ensure_proxy_binary()
    workdir = tmp_path_factory.mktemp("litellm-proxy")
    master_key = "sk-agentls-" + secrets.token_hex(12)
    with ScriptedModelServer() as upstream:
        config = workdir / "cfg.yaml"
        config.write_text(
            f"""\
model_list:
  - model_name: {ALIAS}
    litellm_params:
      model: openai/{UPSTREAM_MODEL}
      api_base: {upstream.api_base}
      api_key: sk-upstream-not-checked
general_settings:
  master_key: {master_key}
litellm_settings:
  drop_params: true
""",
            encoding="utf-8",
        )
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = workdir / "proxy.log"
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_DOCS": "True"}
        with log.open("wb") as log_file:
            process = subprocess.Popen(
                [str(binary), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
                stdout=log_file,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=workdir,
                start_new_session=True,  # its own process group, so all its workers stop
            )
        try:
            wait_until_live(url, process, log)
            yield Proxy(url=url, master_key=master_key, upstream=upstream)
        finally:
            stop_group(process)


def stop_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)
    except ProcessLookupError:
        pass


@pytest.fixture
def proxied_llm(proxy: Proxy, monkeypatch: pytest.MonkeyPatch) -> LiteLLMAdapter:
    monkeypatch.setenv(KEY_ENV, proxy.master_key)
    config = LLMConfig(
        mode="proxy", model=ALIAS, api_base=proxy.url, api_key_env=KEY_ENV, timeout=30, retries=0
    )
    return LiteLLMAdapter(config, retry_policy=RetryPolicy(base_delay=0.01))


async def run_stream(
    llm: LiteLLMAdapter, tools: list[dict[str, Any]] | None = None
) -> tuple[list[str], LLMResponse]:
    items = [item async for item in llm.completion_stream(USER, tools)]
    final = items[-1]
    assert isinstance(final, LLMResponse)
    assert all(isinstance(i, StreamChunk) for i in items[:-1])
    return [i.data for i in items[:-1] if isinstance(i, StreamChunk)], final


async def test_streamed_text_passes_through_the_proxy(
    proxy: Proxy, proxied_llm: LiteLLMAdapter
) -> None:
    proxy.upstream.add(
        UPSTREAM_MODEL,
        text(
            "Streaming through the proxy works.",
            chunk_size=4,
            usage={"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        ),
    )
    before = len(proxy.upstream.requests_for(UPSTREAM_MODEL))
    texts, final = await run_stream(proxied_llm)
    assert len(texts) > 1
    assert "".join(texts) == final.content == "Streaming through the proxy works."
    assert final.finish_reason == "stop"
    assert final.usage is not None and final.usage["total_tokens"] == 18
    assert len(proxy.upstream.requests_for(UPSTREAM_MODEL)) == before + 1


async def test_streamed_tool_calls_pass_through_the_proxy(
    proxy: Proxy, proxied_llm: LiteLLMAdapter
) -> None:
    proxy.upstream.add(
        UPSTREAM_MODEL,
        tool_calls(
            call("read_file", {"path": "src/app.py"}, id="call_p1"),
            call("read_file", {"path": "README.md"}, id="call_p2"),
            text="Reading two files.",
        ),
    )
    _, final = await run_stream(proxied_llm, TOOLS)
    assert final.content == "Reading two files."
    assert [(c.id, c.name, c.arguments) for c in final.tool_calls] == [
        ("call_p1", "read_file", {"path": "src/app.py"}),
        ("call_p2", "read_file", {"path": "README.md"}),
    ]
    upstream_request = proxy.upstream.requests_for(UPSTREAM_MODEL)[-1]
    assert upstream_request.body["tools"][0]["function"]["name"] == "read_file"


async def test_wrong_key_is_reported_as_refused(
    proxy: Proxy, proxied_llm: LiteLLMAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "sk-wrong-" + secrets.token_hex(8)
    monkeypatch.setenv(KEY_ENV, wrong)
    before = len(proxy.upstream.requests)
    with pytest.raises(LLMAuthError) as info:
        await proxied_llm.completion(USER)
    message = str(info.value)
    assert "LiteLLM proxy refused the API key" in message
    assert KEY_ENV in message and wrong not in message and proxy.master_key not in message
    assert len(proxy.upstream.requests) == before  # never reached the model
