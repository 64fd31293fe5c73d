"""Classify what litellm raised and turn it into one of our ``LLMError`` subclasses."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentls.agent.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMStreamInterrupted,
    LLMTransientError,
)
from agentls.agent.secrets import mask_values
from agentls.agent.text import shorten

MAX_PROVIDER_MESSAGE = 200

# litellm prefixes messages with its class names twice ("litellm.RateLimitError:
# RateLimitError: OpenAIException - ..."); the provider's words come after.
_PREFIX = re.compile(r"^(?:(?:litellm\.)?\w*(?:Error|Timeout):\s*)+")


@dataclass(frozen=True)
class CallContext:
    """What an error message may say about the call (never the key itself)."""

    model: str
    api_base: str | None
    proxy: bool
    api_key_env: str
    api_key: str | None
    timeout: float | None = None


def _transport_errors() -> tuple[type[BaseException], ...]:
    import httpx  # already imported by litellm/openai; cheap here

    return (httpx.TransportError, ConnectionError, TimeoutError)


def provider_message(exc: BaseException, ctx: CallContext) -> str:
    raw = getattr(exc, "message", None)
    text = raw if isinstance(raw, str) and raw else str(exc)
    text = _PREFIX.sub("", text.strip(), count=1)
    text = " ".join(text.split())
    text = mask_values(text, [ctx.api_key or ""])
    return shorten(text, MAX_PROVIDER_MESSAGE)


def _status(exc: BaseException) -> int | None:
    # litellm gives connection failures and mid-stream breaks a made-up 500 or 408;
    # naming an HTTP status the server never sent would mislead.
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"APIConnectionError", "MidStreamFallbackError"}:
        return None
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _provider(exc: BaseException, ctx: CallContext) -> str:
    provider = getattr(exc, "llm_provider", None)
    if isinstance(provider, str) and provider:
        return provider
    return ctx.model.split("/", 1)[0] if "/" in ctx.model else "litellm"


#: How the provider SDKs word a call made with no key at all: litellm reports it as a
#: connection error (HTTP 500), which would be retried and blamed on the provider.
_NO_KEY = ("missing credentials", "api_key client option must be set", "no api key")


def _is_missing_key(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(words in text for words in _NO_KEY)


def is_transient(exc: BaseException, litellm: Any) -> bool:
    """Worth retrying: rate limit, timeout, connection failure, 5xx."""
    if _is_missing_key(exc):
        return False
    permanent = (
        litellm.AuthenticationError,
        litellm.PermissionDeniedError,
        litellm.BadRequestError,
        litellm.NotFoundError,
        litellm.UnprocessableEntityError,
    )
    status = _status(exc)
    if isinstance(exc, permanent) or (
        status is not None and 400 <= status < 500 and status not in (408, 429)
    ):
        return False
    transient = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.BadGatewayError,
        *_transport_errors(),
    )
    if isinstance(exc, transient):
        return True
    return status is not None and (status == 429 or status >= 500)


def retry_after_seconds(exc: BaseException) -> float | None:
    response: Any = getattr(exc, "response", None)
    headers: Any = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _is_refused_key(exc: BaseException, ctx: CallContext, litellm: Any) -> bool:
    # litellm maps some providers' 403 to a plain APIError, so the status decides too.
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return True
    if _is_missing_key(exc):
        return True
    if _status(exc) in (401, 403):
        return True
    # A LiteLLM proxy without a database answers an unknown key with 400 "No connected db.".
    return (
        ctx.proxy
        and isinstance(exc, litellm.BadRequestError)
        and "no connected db" in str(exc).lower()
    )


def to_llm_error(exc: BaseException, ctx: CallContext, litellm: Any, attempts: int) -> LLMError:
    """Our error for what litellm (or the transport under it) raised."""
    if isinstance(exc, LLMError):
        return exc
    provider = _provider(exc, ctx)
    status = _status(exc)
    detail = provider_message(exc, ctx)
    where = f"{provider}, HTTP {status}" if status is not None else provider
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    limit = f" (limit {ctx.timeout:g}s)" if ctx.timeout else ""
    target = f"{ctx.model}" + (f" at {ctx.api_base}" if ctx.api_base else "")
    kwargs: dict[str, Any] = {"provider": provider, "status_code": status, "attempts": attempts}

    if litellm is not None and _is_refused_key(exc, ctx, litellm):
        who = "the LiteLLM proxy" if ctx.proxy else provider
        key_state = "is not set" if ctx.api_key is None else "was refused"
        if _is_missing_key(exc):  # no HTTP exchange took place: no status to name
            kwargs["status_code"] = None
            return LLMAuthError(
                f"no API key for {target}: ${ctx.api_key_env} is not set, nor the "
                f"variable {provider} reads ({detail})",
                **kwargs,
            )
        return LLMAuthError(
            f"{who} refused the API key for {target}: the key from ${ctx.api_key_env} "
            f"{key_state} ({where}): {detail}",
            **kwargs,
        )
    if litellm is not None and isinstance(exc, litellm.NotFoundError):
        return LLMBadRequestError(
            f"model {target} was not found ({where}): {detail}; {_suggest(ctx.model, litellm)}",
            **kwargs,
        )
    if litellm is not None and isinstance(exc, litellm.Timeout):
        return LLMTransientError(
            f"model call to {target} timed out{limit}{tries} ({where}): {detail}", **kwargs
        )
    if litellm is not None and isinstance(exc, litellm.RateLimitError):
        return LLMTransientError(
            f"model call to {target} was rate limited{tries} ({where}): {detail}", **kwargs
        )
    if (
        litellm is not None
        and isinstance(exc, litellm.BadRequestError | litellm.UnprocessableEntityError)
    ) or (status is not None and 400 <= status < 500 and status not in (408, 429)):
        return LLMBadRequestError(
            f"model call to {target} was rejected as a bad request ({where}): {detail}",
            **kwargs,
        )
    transient = is_transient(exc, litellm) if litellm is not None else False
    if transient or isinstance(exc, _transport_errors()):
        return LLMTransientError(
            f"model call to {target} failed{tries} ({where}): {detail}", **kwargs
        )
    return LLMError(f"model call to {target} failed ({where}): {detail}", **kwargs)


def _suggest(model: str, litellm: Any) -> str:
    """Close matches of a model the provider does not know, and where to list them."""
    from agentls.agent.llm.model_facts import close_matches

    try:
        matches = close_matches(litellm, model)
    except Exception:  # litellm's list in an unexpected shape: the pointer is enough
        matches = []
    listed = "`agentls models` lists the models you can use"
    return f"did you mean {', '.join(matches)}? {listed}" if matches else listed


#: How litellm words a stream the provider closed before sending a finish reason.
_CLEAN_EOF = "Stream ended before a finish_reason was received"


def cut_reason(exc: BaseException | None, ctx: CallContext) -> str:
    """Why a stream stopped before its end, in words for a log or an error."""
    # Older litellm versions end such a stream quietly (exc is None); newer ones raise
    # a protocol error for it. Either way the provider closed a stream it had not finished.
    if exc is None or _CLEAN_EOF in str(exc):
        return "the stream ended without a finish reason"
    return f"the connection broke: {provider_message(exc, ctx)}"


def stream_cut(
    reason: str, ctx: CallContext, partial_text: str, attempts: int
) -> LLMStreamInterrupted:
    """The error once every attempt's stream was cut before its end."""
    tries = f" on each of {attempts} attempts" if attempts > 1 else ""
    return LLMStreamInterrupted(
        f"the stream from {ctx.model} was cut before its end{tries} ({reason}); "
        "its answer was discarded and none of its tool calls ran",
        partial_text=partial_text,
    )
