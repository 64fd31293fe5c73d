"""Chat calls to an OpenAI-compatible endpoint over httpx, without importing litellm.

``import litellm`` costs 3-4 s and ~190 MB before the first request can leave; a local
server (Ollama, LM Studio, vLLM, llama.cpp), a LiteLLM proxy or any ``openai/…`` model
with an ``api_base`` is answered by one POST to ``{api_base}/chat/completions`` that
litellm itself only passes through. For those (``speaks_openai``) this module is the
client: ``OpenAIHttp`` offers the part of litellm's interface that ``LiteLLMAdapter``,
``failures``, ``model_check`` and ``model_facts`` use (``acompletion``, the exception
classes, ``cost_per_token``, ``model_cost``, ``get_model_info``...),
so the retries, the stream assembly and the error messages are the adapter's own code on
either path. Every other provider goes through litellm, unchanged.

What goes on the wire is what litellm sends there: the model without its ``openai/`` or
``litellm_proxy/`` prefix, the messages and tools as given, ``stream`` and
``stream_options``; ``Authorization: Bearer <key>``. httpx is the transport litellm's
OpenAI client uses too, so proxies (``HTTPS_PROXY``, ``NO_PROXY``) and certificates
(``SSL_CERT_FILE``) are honoured alike. Prices and model facts come from litellm's own
list (``cost_map``). Token counts come from the provider's own reports (``tokens``):
loading litellm's counter would undo what this module saves.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import weakref
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import cost_map

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

#: Providers whose calls are plain OpenAI chat completions at the configured ``api_base``.
OPENAI_PREFIX = "openai/"
PROXY_PREFIX = "litellm_proxy/"

#: Set to ``litellm``, every call goes through litellm (the way back, should an endpoint
#: need something of litellm's that this client does not do).
CLIENT_VARIABLE = "AGENTLS_LLM_CLIENT"

#: A connection pool's kind: (the endpoint is on this machine, it can never speak TLS).
_PoolKind = tuple[bool, bool]


def speaks_openai(config: LLMConfig) -> bool:
    """Whether ``config``'s calls can be made here: an ``openai/…`` model or a LiteLLM
    proxy's alias, at a configured ``api_base``, unless litellm is asked for."""
    if os.environ.get(CLIENT_VARIABLE, "").strip().lower() == "litellm":
        return False
    if not config.api_base:
        return False
    return config.mode == "proxy" or config.model.startswith(OPENAI_PREFIX)


# -- errors, named as litellm names them (``failures`` classifies them by class) -------


class OpenAIHttpError(Exception):
    """A failed call; ``status_code``, ``llm_provider`` and ``response`` as litellm's."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        llm_provider: str = "openai",
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.llm_provider = llm_provider
        self.response = response


class APIError(OpenAIHttpError):
    pass


class BadRequestError(OpenAIHttpError):
    pass


class AuthenticationError(OpenAIHttpError):
    pass


class PermissionDeniedError(OpenAIHttpError):
    pass


class NotFoundError(OpenAIHttpError):
    pass


class UnprocessableEntityError(OpenAIHttpError):
    pass


class RateLimitError(OpenAIHttpError):
    pass


class InternalServerError(OpenAIHttpError):
    pass


class BadGatewayError(OpenAIHttpError):
    pass


class ServiceUnavailableError(OpenAIHttpError):
    pass


class Timeout(OpenAIHttpError):
    pass


class APIConnectionError(OpenAIHttpError):
    pass


_BY_STATUS: dict[int, type[OpenAIHttpError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: Timeout,
    422: UnprocessableEntityError,
    429: RateLimitError,
    500: InternalServerError,
    502: BadGatewayError,
    503: ServiceUnavailableError,
    504: Timeout,
}


def _error_for_status(response: httpx.Response, body: bytes, provider: str) -> OpenAIHttpError:
    detail = body.decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(detail)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict) and error.get("message"):
            detail = str(error["message"])
        elif isinstance(error, str) and error:
            detail = error
    status = response.status_code
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIError)
    # litellm's wording ("OpenAIException - ..."), which ``failures`` strips the same way.
    return cls(
        f"OpenAIException - {detail or response.reason_phrase}",
        status_code=status,
        llm_provider=provider,
        response=response,
    )


def _transport_error(exc: Exception, provider: str) -> OpenAIHttpError:
    httpx = _httpx()

    if isinstance(exc, httpx.TimeoutException):
        return Timeout(f"OpenAIException - Request timed out: {exc!r}", llm_provider=provider)
    return APIConnectionError(f"OpenAIException - Connection error: {exc}", llm_provider=provider)


# -- the stream --------------------------------------------------------------------


class ChunkStream:
    """The server-sent events of one streamed call, as chunk dicts; closing it closes
    the HTTP response. A stream that ends without ``[DONE]`` or a finish reason simply
    ends: the adapter tells a cut stream by the missing finish reason."""

    def __init__(self, response: httpx.Response, provider: str) -> None:
        self._response = response
        self._provider = provider
        self._lines: AsyncIterator[str] = response.aiter_lines()
        self._done = False

    def __aiter__(self) -> ChunkStream:
        return self

    async def __anext__(self) -> dict[str, Any]:
        httpx = _httpx()

        while not self._done:
            try:
                line = await anext(self._lines)
            except StopAsyncIteration:
                self._done = True
                break
            except httpx.HTTPError as exc:
                self._done = True
                raise _transport_error(exc, self._provider) from None
            if not line.startswith("data:"):
                continue  # comments, event names, keep-alives
            data = line[5:].strip()
            if data == "[DONE]":
                self._done = True
                break
            if not data:
                continue
            try:
                chunk = json.loads(data)
            except ValueError:
                raise APIError(
                    f"OpenAIException - a malformed event in the stream: {data[:200]}",
                    llm_provider=self._provider,
                ) from None
            if isinstance(chunk, dict) and chunk.get("error"):
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else error
                raise APIError(f"OpenAIException - {message}", llm_provider=self._provider)
            if isinstance(chunk, dict):
                return chunk
        await self.aclose()
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self._done = True
        await self._response.aclose()


# -- model facts without litellm ----------------------------------------------------


class _ListedModels(Mapping[str, dict[str, Any]]):
    """``litellm.model_cost`` read from its file: one entry at a time, the whole list
    only when iterated."""

    def __getitem__(self, key: str) -> dict[str, Any]:
        found = cost_map.entry(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and cost_map.entry(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(cost_map.whole_list())

    def __len__(self) -> int:
        return len(cost_map.whole_list())


class OpenAIHttp:
    """The part of litellm's module interface the adapter uses, for OpenAI-compatible
    endpoints. One per process (``client()``): it keeps one connection pool."""

    APIError = APIError
    BadRequestError = BadRequestError
    AuthenticationError = AuthenticationError
    PermissionDeniedError = PermissionDeniedError
    NotFoundError = NotFoundError
    UnprocessableEntityError = UnprocessableEntityError
    RateLimitError = RateLimitError
    InternalServerError = InternalServerError
    BadGatewayError = BadGatewayError
    ServiceUnavailableError = ServiceUnavailableError
    Timeout = Timeout
    APIConnectionError = APIConnectionError

    model_cost: Mapping[str, dict[str, Any]] = _ListedModels()

    def __init__(self) -> None:
        # One pool per event loop and kind of endpoint (tests run several loops).
        self._pools: weakref.WeakKeyDictionary[Any, dict[_PoolKind, httpx.AsyncClient]] = (
            weakref.WeakKeyDictionary()
        )

    # -- calls

    def _client(self, url: str) -> httpx.AsyncClient:
        """The loop's pool for ``url``. A server on this machine gets a connection per
        call (one costs ~0.1 ms, and none is left open when the loop ends); a remote one
        keeps its connections, as litellm's client does, since each costs a TLS handshake.

        A pool that can never speak TLS (plain ``http://``, no proxy set in the
        environment, redirects not followed) skips loading the certificate store, ~35 ms
        before the first request to a local server."""
        import asyncio
        import urllib.request

        httpx = _httpx()

        from agentls.agent.llm.local_servers import is_loopback

        local = is_loopback(url)
        plain = url.startswith("http://") and not urllib.request.getproxies()
        pools = self._pools.setdefault(asyncio.get_running_loop(), {})
        pool = pools.get((local, plain))
        if pool is None or pool.is_closed:
            limits = httpx.Limits(max_keepalive_connections=0) if local else httpx.Limits()
            pool = pools[local, plain] = httpx.AsyncClient(
                timeout=None, follow_redirects=False, limits=limits, verify=not plain
            )
        return pool

    async def acompletion(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - litellm's keyword, kept
        tools: list[dict[str, Any]] | None = None,
        stream: bool = False,
        stream_options: dict[str, Any] | None = None,
        **_ignored: Any,  # max_retries, num_retries: the adapter retries itself
    ) -> Any:
        httpx = _httpx()

        provider = "litellm_proxy" if model.startswith(PROXY_PREFIX) else "openai"
        if not api_base:
            raise BadRequestError(
                f"OpenAIException - no api_base for {model}", llm_provider=provider
            )
        body: dict[str, Any] = {"model": wire_model(model), "messages": messages}
        if tools:
            body["tools"] = tools
        if stream:
            body["stream"] = True
            if stream_options:
                body["stream_options"] = stream_options
        headers = {"content-type": "application/json", "accept": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        url = api_base.rstrip("/") + "/chat/completions"
        limit = httpx.Timeout(timeout) if timeout else httpx.Timeout(600.0, connect=5.0)
        http = self._client(url)
        request = http.build_request("POST", url, content=json.dumps(body), headers=headers)
        request.extensions["timeout"] = limit.as_dict()
        try:
            response = await http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise _transport_error(exc, provider) from None
        try:
            if response.status_code >= 400:
                raise _error_for_status(response, await response.aread(), provider)
            if stream:
                return ChunkStream(response, provider)
            data = json.loads(await response.aread())
        except httpx.HTTPError as exc:
            raise _transport_error(exc, provider) from None
        except ValueError:
            raise APIError(
                "OpenAIException - the answer is not JSON", llm_provider=provider
            ) from None
        finally:
            if not stream or response.status_code >= 400:
                await response.aclose()
        if isinstance(data, dict) and data.get("error"):
            error = data["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise APIError(f"OpenAIException - {message}", llm_provider=provider)
        return data

    # -- prices, facts, counts (litellm's list, read from its file)

    def cost_per_token(
        self, *, model: str, prompt_tokens: int, completion_tokens: int
    ) -> tuple[float, float]:
        return cost_map.cost_per_token(model, prompt_tokens, completion_tokens)

    def get_model_info(self, model: str) -> dict[str, Any]:
        found = cost_map.model_entry(model)
        if found is None:
            raise KeyError(f"{model} is not in litellm's model list")
        # litellm's own answer names a price even where its list gives none.
        return {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, **found[1]}

    def get_llm_provider(self, model: str) -> tuple[str, str, None, None]:
        provider = "litellm_proxy" if model.startswith(PROXY_PREFIX) else "openai"
        return wire_model(model), provider, None, None

    def validate_environment(self, model: str) -> dict[str, Any]:
        # Only reached without an api_base, which this client is never used without.
        return {"keys_in_environment": True, "missing_keys": []}


def _httpx() -> Any:
    """httpx, and the httpcore its clients load, imported without what an HTTP/1.1 client
    never uses: httpx's command line (with rich and click installed, ``import httpx`` loads
    them too, half of its ~0.25 s) and httpcore's HTTP/2 (h2 and hpack, with h2 installed).
    Both packages import those on an ``ImportError`` fallback, so each is kept out for the
    import only; a later ``http2=True`` client (litellm's) still loads h2 where it needs it."""
    module = sys.modules.get("httpx")
    if module is not None:
        return module
    blocked = [name for name in ("httpx._main", "h2") if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # its ImportError path
    try:
        import httpcore  # noqa: F401  # here, where h2 is kept out of it
        import httpx
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return httpx


def wire_model(model: str) -> str:
    """The model as the endpoint knows it (litellm strips these prefixes too)."""
    for prefix in (OPENAI_PREFIX, PROXY_PREFIX):
        if model.startswith(prefix):
            return model[len(prefix) :]
    return model


_client_lock = threading.Lock()
_shared: OpenAIHttp | None = None


def client() -> OpenAIHttp:
    """The process's one ``OpenAIHttp``."""
    global _shared
    with _client_lock:
        if _shared is None:
            _shared = OpenAIHttp()
        return _shared


async def load_client() -> OpenAIHttp:
    """The client, as ``_litellm.load_litellm`` gives litellm (nothing to import here)."""
    return client()
