"""``EditorLLM``: the ``LLM`` protocol over the editor's own language models.

An editor that offers its models (VS Code's ``vscode.lm``: Copilot's models, or any
extension's provider) makes each call itself: the engine hands it the messages and the
tools through an ``EditorModelChannel`` and reads back text and tool calls as they come.
The channel is the front end's (the language server sends ``agent/modelRequest``); this
module knows no wire. Model ids are ``editor/<vendor>/<id>``, the vendor and id of the
editor's model.

The guarantees of the ``LLM`` protocol hold: text streams as ``StreamChunk``s, then
exactly one ``LLMResponse`` with the tool calls assembled; a request that ends without
the editor's final answer (an error, the editor gone) is never an answer, it raises. A
cut call is not retried: the editor's models are metered by the editor's own quota, and
its refusals (no consent, blocked, model gone) do not change on a retry.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agentls.agent.llm.errors import LLMBadRequestError, LLMStreamInterrupted
from agentls.agent.llm.models import LLMResponse, StreamChunk, StreamRestart, ToolCall
from agentls.agent.llm.protocol import LLM
from agentls.agent.llm.tokens import CountMemo, MessageCounts, estimate_tokens

if TYPE_CHECKING:
    from agentls.agent.llm.available import AvailableModel

#: What starts the id of an editor's model.
EDITOR_PREFIX = "editor/"
#: The provider named in errors.
PROVIDER = "editor"
UNAVAILABLE = (
    "the editor's models are only available in an editor that offers them "
    "(VS Code with the agentls extension); {model} cannot be used here"
)


@dataclass(frozen=True)
class EditorText:
    """A piece of the answer's text."""

    text: str


@dataclass(frozen=True)
class EditorToolCall:
    """A tool call, whole (the editor assembles its arguments)."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EditorAnswerEnd:
    """The editor's final answer: the call finished."""

    finish_reason: str | None = None
    usage: dict[str, Any] | None = None


EditorPart = EditorText | EditorToolCall | EditorAnswerEnd


@dataclass(frozen=True)
class EditorModelInfo:
    """One of the editor's models, as the editor describes it."""

    vendor: str
    id: str
    name: str
    family: str = ""
    max_input_tokens: int | None = None


class EditorModelChannel(Protocol):
    """How the engine reaches the editor's models (a front end's)."""

    def request(
        self, vendor: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> AsyncIterator[EditorPart]:
        """The parts of one answer; the last is an ``EditorAnswerEnd``. Ends without one
        (or raises ``LLMError``) when the call failed. Closing the iterator early cancels
        the editor's request."""
        ...

    async def count_tokens(
        self, vendor: str, model: str, messages: list[dict[str, Any]]
    ) -> list[int]:
        """The model's own count of each message's tokens, in order."""
        ...

    async def models(self) -> list[EditorModelInfo]:
        """The models the editor offers now."""
        ...


def is_editor_model(model: str) -> bool:
    return model.startswith(EDITOR_PREFIX)


def editor_model_id(vendor: str, model: str) -> str:
    return f"{EDITOR_PREFIX}{vendor}/{model}"


def split_editor_model(model_id: str) -> tuple[str, str]:
    """``editor/copilot/gpt-4o`` → ``("copilot", "gpt-4o")``; the id may hold slashes."""
    rest = model_id.removeprefix(EDITOR_PREFIX)
    vendor, _, model = rest.partition("/")
    if not is_editor_model(model_id) or not vendor or not model:
        raise LLMBadRequestError(
            f"{model_id!r} is not an editor model id: write editor/<vendor>/<id>",
            provider=PROVIDER,
        )
    return vendor, model


class EditorLLM:
    """One editor model, called through ``channel``."""

    def __init__(self, channel: EditorModelChannel, model_id: str) -> None:
        self._channel = channel
        self.model_id = model_id
        self._vendor, self._model = split_editor_model(model_id)
        # Each message is counted once (a step asks only about the new ones); a failed
        # count is an estimate: it only sizes the context, and the call itself will say
        # why the model cannot be used.
        self._counts = CountMemo(self._fetch_counts)

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        async for item in self.completion_stream(messages, tools):
            if isinstance(item, LLMResponse):
                return item
        raise LLMStreamInterrupted(f"{self.model_id}: no answer", provider=PROVIDER)

    async def completion_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamChunk | StreamRestart | LLMResponse]:
        text: list[str] = []
        calls: list[ToolCall] = []
        end: EditorAnswerEnd | None = None
        parts = self._channel.request(self._vendor, self._model, messages, tools or [])
        try:
            async for part in parts:
                if isinstance(part, EditorText):
                    if part.text:
                        text.append(part.text)
                        yield StreamChunk(data=part.text)
                elif isinstance(part, EditorToolCall):
                    calls.append(_tool_call(part))
                else:
                    end = part
                    break
        finally:
            # Closing the channel's iterator is what cancels the editor's request when
            # the run is cancelled (or the caller stopped reading).
            await _close(parts)
        if end is None:
            raise LLMStreamInterrupted(
                f"{self.model_id}: the editor's answer was cut before its end",
                partial_text="".join(text),
                provider=PROVIDER,
            )
        finish = end.finish_reason or ("tool_calls" if calls else "stop")
        yield LLMResponse(
            content="".join(text) or None, tool_calls=calls, finish_reason=finish, usage=end.usage
        )

    async def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        return await self._counts.total(messages)

    async def _fetch_counts(self, messages: list[dict[str, Any]]) -> MessageCounts:
        if not messages:
            return MessageCounts(0, [])
        return MessageCounts(
            0, await self._channel.count_tokens(self._vendor, self._model, messages)
        )


class UnavailableEditorLLM:
    """An editor model id where no editor lends its models: every call fails with why
    (before any request is made), so the run's output says it."""

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id

    def _error(self) -> LLMBadRequestError:
        return LLMBadRequestError(UNAVAILABLE.format(model=self.model_id), provider=PROVIDER)

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        raise self._error()

    async def completion_stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[StreamChunk | StreamRestart | LLMResponse]:
        raise self._error()
        yield  # an async generator, like the others

    async def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        return estimate_tokens(messages)


def llm_for_model(
    model_id: str, *, editor: EditorModelChannel | None, otherwise: Callable[[], LLM]
) -> LLM:
    """The model access for ``model_id``: the editor's for ``editor/…`` ids (an error
    at the first call when no editor offers its models), ``otherwise()`` for the rest."""
    if not is_editor_model(model_id):
        return otherwise()
    if editor is None:
        return UnavailableEditorLLM(model_id)
    return EditorLLM(editor, model_id)


class ChannelEditorModels:
    """The ``EditorModels`` listing over a channel: each of the editor's models as an
    ``AvailableModel``."""

    def __init__(self, channel: EditorModelChannel) -> None:
        self._channel = channel

    async def list(self) -> list[AvailableModel]:
        return [available_editor_model(info) for info in await self._channel.models()]


def available_editor_model(info: EditorModelInfo) -> AvailableModel:
    # Here: a run that only asks whether its model is the editor's never needs the list's
    # machinery (provider keys, local servers).
    from agentls.agent.llm.available import AvailableModel

    return AvailableModel(
        id=editor_model_id(info.vendor, info.id),
        label=f"{info.name} ({info.vendor}, editor)",
        source="editor",
        # vscode.lm does not say whether a model calls tools or reads images
        tools=None,
        images=None,
        context_window=info.max_input_tokens,
        # paid through the editor (a Copilot plan): no price per token here
        input_cost_per_token=None,
        output_cost_per_token=None,
        note="served by the editor; it may ask once before the first use",
    )


def _tool_call(part: EditorToolCall) -> ToolCall:
    return ToolCall(
        id=part.id,
        name=part.name,
        arguments=part.arguments,
        raw_arguments=json.dumps(part.arguments, ensure_ascii=False),
    )


async def _close(parts: AsyncIterator[EditorPart]) -> None:
    close = getattr(parts, "aclose", None)
    if close is not None:
        await close()
