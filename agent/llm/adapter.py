"""``LiteLLMAdapter``: the ``LLM`` protocol over ``litellm.acompletion``, or over
``openai_http`` (the same interface without importing litellm) for an OpenAI-compatible
endpoint; ``adapter_for`` chooses. Retries, stream assembly, error messages and prices are
this module's on both paths."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from types import ModuleType
from typing import Any

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import _litellm
from agentls.agent.llm.cache_breakpoints import with_breakpoints
from agentls.agent.llm.failures import (
    CallContext,
    cut_reason,
    is_transient,
    retry_after_seconds,
    stream_cut,
    to_llm_error,
)
from agentls.agent.llm.model_facts import ModelFacts
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart
from agentls.agent.llm.pricing import priced
from agentls.agent.llm.retry import RetryPolicy
from agentls.agent.llm.stream import StreamAssembler, response_from_completion
from agentls.agent.llm.tokens import (
    NOT_COUNTED,
    CountMemo,
    MessageCounts,
    estimated_counts,
    split_counts,
)
from agentls.agent.startup_collector import resume_collection

log = logging.getLogger(__name__)

PROXY_PREFIX = "litellm_proxy/"
# The openai client refuses to start without some key, even for a local server that
# ignores it; this one is sent only when the configured variable is unset.
PLACEHOLDER_KEY = "sk-agentls-no-key"

Sleep = Callable[[float], Awaitable[None]]
#: What gives the adapter its client: litellm itself, or ``openai_http``'s stand-in.
ClientLoader = Callable[[], Awaitable[Any]]


def adapter_for(
    config: LLMConfig, *, retry_policy: RetryPolicy | None = None, sleep: Sleep = asyncio.sleep
) -> LiteLLMAdapter:
    """The adapter for ``config``: its calls made without litellm when the endpoint speaks
    OpenAI's protocol (``openai_http.speaks_openai``), else through litellm."""
    from agentls.agent.llm import openai_http

    load: ClientLoader | None = (
        openai_http.load_client if openai_http.speaks_openai(config) else None
    )
    return LiteLLMAdapter(config, retry_policy=retry_policy, sleep=sleep, client=load)


class LiteLLMAdapter:
    """Calls the configured model through litellm (or ``client``, a stand-in with its
    interface), with retries on transient errors."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        retry_policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        client: ClientLoader | None = None,
    ) -> None:
        self.config = config
        self.retry_policy = retry_policy or RetryPolicy()
        self._sleep = sleep
        self._load_client: ClientLoader = client or _litellm.load_litellm
        self._count_memo = CountMemo(self.count_each)

    @property
    def uses_litellm(self) -> bool:
        """Whether the calls go through litellm (else through ``openai_http``)."""
        return self._load_client is _litellm.load_litellm

    # -- what goes to litellm

    @property
    def model_name(self) -> str:
        """The model as litellm sees it (proxy mode addresses the proxy's alias)."""
        model = self.config.model
        if self.config.mode == "proxy" and not model.startswith(PROXY_PREFIX):
            return PROXY_PREFIX + model
        return model

    def _api_key(self) -> str | None:
        key = os.environ.get(self.config.api_key_env) or None
        if (
            key is None
            and self.config.api_base
            and (self.config.mode == "proxy" or self.config.model.startswith("openai/"))
        ):
            return PLACEHOLDER_KEY
        return key

    def _context(self, api_key: str | None) -> CallContext:
        return CallContext(
            model=self.model_name,
            api_base=self.config.api_base,
            proxy=self.config.mode == "proxy",
            api_key_env=self.config.api_key_env,
            api_key=None if api_key == PLACEHOLDER_KEY else api_key,
            timeout=self.config.timeout,
        )

    def _kwargs(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        api_key: str | None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model_name,
            "messages": with_breakpoints(self.model_name, messages),
            "timeout": self.config.timeout,
            # We retry ourselves, with jitter and only on transient errors.
            "max_retries": 0,
            "num_retries": 0,
        }
        if self.config.api_base:
            kwargs["api_base"] = self.config.api_base
        if api_key is not None:
            kwargs["api_key"] = api_key
        if tools:
            kwargs["tools"] = tools
        return kwargs

    async def _backoff(
        self, exc: BaseException, retry: int, ctx: CallContext, litellm: ModuleType
    ) -> None:
        delay = self.retry_policy.delay(retry, retry_after_seconds(exc))
        err = to_llm_error(exc, ctx, litellm, attempts=1)
        log.warning(
            "model call failed (attempt %d of %d), retrying in %.2fs: %s",
            retry + 1,
            self.config.retries + 1,
            delay,
            err,
        )
        await self._sleep(delay)

    async def _call(self, litellm: Any, kwargs: dict[str, Any]) -> Any:
        try:
            return await litellm.acompletion(**kwargs)
        finally:
            # A command-line process's start ends with its first model call.
            resume_collection()

    # -- the LLM protocol

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        litellm = await self._load_client()
        api_key = self._api_key()
        ctx = self._context(api_key)
        kwargs = self._kwargs(messages, tools, api_key)
        retry = 0
        while True:
            try:
                response = await self._call(litellm, kwargs)
                return self._answered(response_from_completion(response), litellm, messages, tools)
            except Exception as exc:
                if retry < self.config.retries and is_transient(exc, litellm):
                    await self._backoff(exc, retry, ctx, litellm)
                    retry += 1
                    continue
                raise to_llm_error(exc, ctx, litellm, retry + 1) from None

    async def completion_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamChunk | StreamRestart | LLMResponse]:
        litellm = await self._load_client()
        api_key = self._api_key()
        ctx = self._context(api_key)
        kwargs = self._kwargs(messages, tools, api_key)
        kwargs["stream"] = True
        # Without it, usage is missing from streams (the LiteLLM proxy drops it too).
        kwargs["stream_options"] = {"include_usage": True}
        retry = 0
        while True:
            assembler = StreamAssembler()
            stream: Any = None
            failure: Exception | None = None
            received = shown = False
            try:
                while True:
                    try:
                        if stream is None:
                            stream = await self._call(litellm, kwargs)
                        chunk = await anext(stream)
                    except StopAsyncIteration:
                        break
                    except Exception as exc:
                        failure = exc
                        break
                    received = True
                    piece = assembler.add(chunk)
                    if piece:
                        shown = True
                        # Not inside the except clauses above: whatever is thrown into
                        # the generator here must reach the caller untouched.
                        yield StreamChunk(data=piece)
            finally:
                await _close_quietly(stream)

            if failure is None and provider_finished(stream, assembler):
                yield self._answered(assembler.finish(), litellm, messages, tools)
                return
            if failure is not None and not received:
                # The call failed before its stream began: an ordinary failed call.
                if retry < self.config.retries and is_transient(failure, litellm):
                    await self._backoff(failure, retry, ctx, litellm)
                    retry += 1
                    continue
                raise to_llm_error(failure, ctx, litellm, retry + 1) from None
            # The stream was cut before its end. Nothing of it has been acted on (tool
            # calls only run from a finished response), so the whole call is retried;
            # text already shown is declared void first.
            reason = cut_reason(failure, ctx)
            if retry < self.config.retries:
                log.warning(
                    "the stream from %s was cut (attempt %d of %d), retrying: %s",
                    ctx.model,
                    retry + 1,
                    self.config.retries + 1,
                    reason,
                )
                if shown:
                    yield StreamRestart(reason=reason, attempt=retry + 2)
                await self._sleep(self.retry_policy.delay(retry))
                retry += 1
                continue
            raise stream_cut(reason, ctx, assembler.text, retry + 1) from None

    async def check(self) -> ModelFacts | None:
        """Whether the model can be called at all, before any call (see model_check)."""
        from agentls.agent.llm.model_check import check_model

        return await check_model(self.config, os.environ, await self._load_client())

    def _answered(
        self,
        response: LLMResponse,
        client: Any,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
    ) -> LLMResponse:
        """The finished answer, priced; what the provider said the prompt cost anchors
        the counts where no exact counter is (``tokens``)."""
        self._count_memo.answered(messages, tools, response.usage)
        return priced(response, self.config.model, client)

    async def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        """The model's count, each message counted once per adapter (``tokens``)."""
        return await self._count_memo.total(messages)

    async def count_each(self, messages: list[dict[str, Any]]) -> MessageCounts:
        """Each message's tokens by litellm's counter (off the event loop: it is CPU
        work), or an estimate when litellm cannot count for the model. ``NOT_COUNTED`` when
        the calls do not go through litellm: loading it (and its tokenizer) only to count
        would cost more than the calls, so the counts come from the provider's reports."""
        if not self.uses_litellm:
            return NOT_COUNTED
        litellm = await self._load_client()
        model = self.model_name.removeprefix(PROXY_PREFIX)

        def count(conversation: list[dict[str, Any]]) -> int:
            return int(litellm.token_counter(model=model, messages=conversation))

        try:
            return await asyncio.to_thread(split_counts, count, messages)
        except Exception:  # an unknown model or message shape: estimate instead
            log.debug("token_counter failed for %s; estimating", model, exc_info=True)
            return estimated_counts(messages)


def provider_finished(stream: Any, assembler: StreamAssembler) -> bool:
    """Whether the provider itself said why the stream stopped.

    litellm makes a finish reason up ("stop") when a stream simply ends, which would turn
    a cut stream into a short answer; its stream wrapper keeps the one the provider sent.
    """
    if not assembler.finished:
        return False
    if hasattr(stream, "received_finish_reason"):
        sent = getattr(stream, "received_finish_reason", None)
        return bool(sent or getattr(stream, "intermittent_finish_reason", None))
    return True


async def _close_quietly(stream: Any) -> None:
    if stream is None:
        return
    close = getattr(stream, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:  # closing a broken stream may fail again; the first error matters
        log.debug("closing the model stream failed", exc_info=True)
