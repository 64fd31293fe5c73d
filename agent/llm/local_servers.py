"""What a model server at ``llm.api_base`` serves: Ollama's ``/api/tags``, or the
OpenAI-compatible ``/v1/models`` of LM Studio, vLLM, llama.cpp, a LiteLLM proxy...

Which API is asked follows the configured model: an ``ollama/`` or ``ollama_chat/`` model
asks Ollama's own API (``GET /api/tags``, then ``POST /api/show`` per model for its
``capabilities``: ``tools`` and ``vision`` are listed there by Ollama 0.6 and later);
anything else asks ``GET {api_base}/models`` (``{api_base}/v1/models`` when the base does
not end in ``/v1``), which says nothing of tools, so those come from litellm's list or stay
unknown. Ids are what ``llm.model`` takes with that ``api_base``: ``ollama/<name>``; the
configured model's prefix for an OpenAI-compatible server (``lm_studio/``, ``hosted_vllm/``
...; ``openai/`` when it has none); the bare alias for a LiteLLM proxy (``llm.mode: proxy``).

Without an ``api_base``, an Ollama or LM Studio model is asked for where litellm would
send it (``OLLAMA_API_BASE`` / ``LM_STUDIO_API_BASE``, else their default ports).

HTTP is the standard library's, in a thread, with a short timeout: a server that is down
or answers nonsense is one line in the catalog's problems, never a traceback. A server on
this machine is reached directly, never through the environment's HTTP proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm.provider_keys import provider_of

if TYPE_CHECKING:
    import urllib.request

TIMEOUT_SECONDS = 3.0
OLLAMA_DEFAULT = "http://localhost:11434"
LM_STUDIO_DEFAULT = "http://localhost:1234/v1"
OLLAMA_PREFIXES = ("ollama", "ollama_chat")
#: Prefixes of litellm's OpenAI-compatible providers, kept on the ids a server lists.
OPENAI_COMPATIBLE = ("openai", "lm_studio", "hosted_vllm", "llamafile", "openai_like")


@dataclass(frozen=True)
class ServedModel:
    """One model a server lists; ``tools``/``images`` None when it does not say."""

    id: str
    name: str
    tools: bool | None = None
    images: bool | None = None
    context_window: int | None = None


@dataclass
class ServerAnswer:
    """What one server listed, or the one line that says why it did not."""

    base: str
    models: list[ServedModel] = field(default_factory=list)
    problem: str | None = None


class ServerDown(Exception):
    """The server did not answer (connection refused, timeout) or answered an error."""


def server_base(config: LLMConfig, environ: Mapping[str, str]) -> str | None:
    """Where the configured model's server is: ``api_base``, or the local default of an
    Ollama or LM Studio model; None for a provider on the internet."""
    if config.api_base:
        return config.api_base.rstrip("/")
    provider = provider_of(config.model)
    if provider in OLLAMA_PREFIXES:
        return (environ.get("OLLAMA_API_BASE") or OLLAMA_DEFAULT).rstrip("/")
    if provider == "lm_studio":
        return (environ.get("LM_STUDIO_API_BASE") or LM_STUDIO_DEFAULT).rstrip("/")
    return None


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def served_models(config: LLMConfig, base: str) -> ServerAnswer:
    """What the server at ``base`` lists, asked in a thread (see the module's doc)."""
    try:
        if provider_of(config.model) in OLLAMA_PREFIXES:
            models = await asyncio.to_thread(_ollama_models, base, provider_of(config.model))
        else:
            models = await asyncio.to_thread(_openai_models, base, _id_prefix(config))
    except ServerDown as exc:
        return ServerAnswer(base, problem=f"the model server at {base} did not answer: {exc}")
    return ServerAnswer(base, models=models)


def _id_prefix(config: LLMConfig) -> str:
    if config.mode == "proxy":
        return ""
    provider = provider_of(config.model)
    return f"{provider}/" if provider in OPENAI_COMPATIBLE else "openai/"


def _root(base: str) -> str:
    """The server's root: Ollama's own API is beside its ``/v1``."""
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _openai_models(base: str, prefix: str) -> list[ServedModel]:
    url = f"{base}/models" if base.endswith("/v1") else f"{base}/v1/models"
    answer = _get_json(url)
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        raise ServerDown(f"{url} answered without a `data` list")
    models = []
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        name = entry["id"]
        # vLLM says max_model_len, OpenRouter and some others context_length.
        window = entry.get("max_model_len") or entry.get("context_length")
        models.append(
            ServedModel(
                id=prefix + name,
                name=name,
                context_window=window if isinstance(window, int) else None,
            )
        )
    return models


def _ollama_models(base: str, provider: str | None) -> list[ServedModel]:
    root = _root(base)
    answer = _get_json(f"{root}/api/tags")
    listed = answer.get("models") if isinstance(answer, dict) else None
    if not isinstance(listed, list):
        raise ServerDown(f"{root}/api/tags answered without a `models` list")
    models = []
    for entry in listed:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        name = entry["name"].removesuffix(":latest")
        shown = _ollama_show(root, entry["name"])
        listed_capabilities = shown.get("capabilities")
        known = isinstance(listed_capabilities, list)
        capabilities = listed_capabilities if isinstance(listed_capabilities, list) else []
        models.append(
            ServedModel(
                id=f"{provider or 'ollama'}/{name}",
                name=name,
                tools=("tools" in capabilities) if known else None,
                images=("vision" in capabilities) if known else None,
                context_window=_context_length(shown.get("model_info")),
            )
        )
    return models


def _ollama_show(root: str, name: str) -> dict[str, Any]:
    """``/api/show`` of one model; empty when it fails (an older Ollama says less)."""
    try:
        shown = _post_json(f"{root}/api/show", {"model": name})
    except ServerDown:
        return {}
    return shown if isinstance(shown, dict) else {}


def _context_length(info: Any) -> int | None:
    # Ollama keys it by architecture: "llama.context_length", "qwen2.context_length"...
    if not isinstance(info, dict):
        return None
    for key, value in info.items():
        if key.endswith(".context_length") and isinstance(value, int):
            return value
    return None


def _get_json(url: str) -> Any:
    import urllib.request  # here: the protocol's models import this module at start-up

    return _request(urllib.request.Request(url, headers={"accept": "application/json"}))


def _post_json(url: str, body: dict[str, Any]) -> Any:
    import urllib.request

    data = json.dumps(body).encode()
    headers = {"accept": "application/json", "content-type": "application/json"}
    return _request(urllib.request.Request(url, data=data, headers=headers, method="POST"))


def _request(request: urllib.request.Request) -> Any:
    import urllib.error
    import urllib.request

    url = request.full_url
    handlers: list[urllib.request.BaseHandler] = []
    if is_loopback(url):
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            return json.loads(response.read(4 * 1024 * 1024) or b"null")
    except urllib.error.HTTPError as exc:
        raise ServerDown(f"{url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        text = getattr(reason, "strerror", None) or str(reason) or type(exc).__name__
        raise ServerDown(text) from None
    except ValueError:
        raise ServerDown(f"{url} answered something that is not JSON") from None


async def answers(base: str) -> str | None:
    """None when something listens at ``base``'s host and port; else why not (one line).
    A TCP connection only: a down local server is told apart before any model call."""
    parts = urlsplit(base)
    host = parts.hostname or "localhost"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT_SECONDS)
    except ConnectionRefusedError:
        return "connection refused"
    except TimeoutError:
        return f"no answer in {TIMEOUT_SECONDS:g}s"
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    alone = reached_itself(writer.get_extra_info("socket"))
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return "connection refused" if alone else None


def reached_itself(sock: socket.socket | None) -> bool:
    """Whether a connection reached only itself: nothing listens at a free port of the
    ephemeral range, yet the kernel may give the connecting socket that very port, and
    TCP then connects it to itself."""
    return sock is not None and sock.getsockname() == sock.getpeername()
