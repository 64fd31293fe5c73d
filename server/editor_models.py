"""The editor's models over LSP: ``EditorModelChannel`` (agent/llm/editor.py) as requests
to the client.

A client that declares ``experimental.agentls.editorModels`` (the VS Code extension, over
``vscode.lm``) answers ``agent/modelRequest`` by streaming: each piece of text or tool
call comes as an ``agent/modelPart`` notification carrying the request's token, then the
request's answer says the call finished. The parts are put in the call's queue by a
handler that is not async, so every part is queued before the answer that follows it
on the wire is read. Cancelling the reader (the run stopped) sends ``$/cancelRequest``,
and the client cancels its ``vscode.lm`` request. ``agent/countTokens`` asks the model's
own counter, ``agent/editorModels`` lists the models.

Nothing here blocks the event loop: a call waits on its queue, so the server answers
``agent/ping`` and ``agent/cancel`` while the editor streams.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from agentls.agent.llm.editor import (
    PROVIDER,
    EditorAnswerEnd,
    EditorModelInfo,
    EditorPart,
    EditorText,
    EditorToolCall,
)
from agentls.agent.llm.errors import LLMBadRequestError, LLMError
from agentls.server.protocol import (
    CountTokensParams,
    CountTokensResult,
    EditorModelsResult,
    ModelPartParams,
    ModelRequestParams,
    ModelRequestResult,
)
from agentls.server.settings import agentls_capability

log = logging.getLogger(__name__)

REQUEST = "agent/modelRequest"
PART = "agent/modelPart"
COUNT = "agent/countTokens"
LIST = "agent/editorModels"


def client_offers_models(caps: types.ClientCapabilities | None) -> bool:
    return agentls_capability(caps, "editorModels") is True


class _Finished:
    """The request was answered (or failed): no part comes after it."""

    def __init__(self, answer: asyncio.Future[Any]) -> None:
        self.answer = answer


class LspEditorModels:
    """The editor's models of one language server's client."""

    def __init__(self, ls: LanguageServer) -> None:
        self._ls = ls
        #: The queue of each call in flight, by token.
        self._calls: dict[str, asyncio.Queue[ModelPartParams | _Finished]] = {}

    def part(self, params: ModelPartParams) -> None:
        """An ``agent/modelPart``: queued for its call (a late one, after a cancel, is
        dropped)."""
        queue = self._calls.get(params.token)
        if queue is None:
            log.debug("%s for no call in flight (%s): dropped", PART, params.token)
            return
        queue.put_nowait(params)

    async def request(
        self, vendor: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> AsyncIterator[EditorPart]:
        token = uuid.uuid4().hex[:12]
        msg_id = f"agentls-{uuid.uuid4().hex[:12]}"
        queue: asyncio.Queue[ModelPartParams | _Finished] = asyncio.Queue()
        self._calls[token] = queue
        params = ModelRequestParams(
            token=token, vendor=vendor, model=model, messages=messages, tools=tools
        )
        answer = self._ls.protocol.send_request_async(REQUEST, params.to_wire(), msg_id=msg_id)
        answer.add_done_callback(lambda done: queue.put_nowait(_Finished(done)))
        answer.add_done_callback(_seen)
        finished = False
        try:
            while True:
                item = await queue.get()
                if isinstance(item, _Finished):
                    finished = True
                    yield _end(item.answer, vendor, model)
                    return
                if item.text:
                    yield EditorText(item.text)
                if item.tool_call is not None:
                    call = item.tool_call
                    yield EditorToolCall(call.id, call.name, dict(call.arguments))
        finally:
            del self._calls[token]
            if not finished:
                # The run stopped reading (cancelled): the editor stops its request and
                # answers it (RequestCancelled), which ``_seen`` takes. The future is not
                # cancelled here: pygls would then fail to set the late answer on it.
                self._ls.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

    async def count_tokens(
        self, vendor: str, model: str, messages: list[dict[str, Any]]
    ) -> list[int]:
        params = CountTokensParams(vendor=vendor, model=model, messages=messages)
        try:
            result = await self._ls.protocol.send_request_async(COUNT, params.to_wire())
        except JsonRpcException as exc:
            raise LLMError(f"{COUNT}: {exc.message}", provider=PROVIDER) from None
        if not isinstance(result, CountTokensResult) or len(result.counts) != len(messages):
            raise LLMError(f"{COUNT}: not one count per message", provider=PROVIDER)
        return result.counts

    async def models(self) -> list[EditorModelInfo]:
        result = await self._ls.protocol.send_request_async(LIST, {})
        if not isinstance(result, EditorModelsResult):
            return []
        return [
            EditorModelInfo(m.vendor, m.id, m.name, m.family, m.max_input_tokens)
            for m in result.models
        ]


def _seen(answer: asyncio.Future[Any]) -> None:
    """Mark an answer's error as retrieved: after a cancel, nobody reads it."""
    if not answer.cancelled():
        answer.exception()


def _end(answer: asyncio.Future[Any], vendor: str, model: str) -> EditorAnswerEnd:
    """The call's end from the request's answer; an error answer raises with the editor's
    own words (no consent, the model is gone), which the run's output shows."""
    if answer.cancelled():
        raise LLMError(f"the editor's model {vendor}/{model}: the request was cancelled")
    error = answer.exception()
    if error is not None:
        message = error.message if isinstance(error, JsonRpcException) else str(error)
        raise LLMBadRequestError(
            f"the editor's model {vendor}/{model} failed: {message}", provider=PROVIDER
        )
    result = answer.result()
    if not isinstance(result, ModelRequestResult):
        result = ModelRequestResult()
    return EditorAnswerEnd(finish_reason=result.finish_reason, usage=result.usage)
