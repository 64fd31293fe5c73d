"""What the model worker and ``ProcessLLM`` say to each other, in the envelope of
``agentls.child_rpc`` (one JSON object a line, see ``agentls.child_wire``; requests carry
an ``id``). The parent sends::

    {"id": 7, "op": "stream" | "complete", "config": {LLMConfig}, "messages": [...], "tools": [...]}
    {"id": 8, "op": "count", "config": {LLMConfig}, "messages": [...]}
    {"id": 9, "op": "check", "config": {LLMConfig}}
    {"id": 10, "op": "models", "ids": ["openai/gpt-4o", ...], "providers": ["openai", ...],
     "from_file": false}
    {"id": 11, "op": "warm", "config": {LLMConfig}}
    {"id": 7, "op": "cancel"}

and the worker answers, for each request id, zero or more ``chunk`` and ``restart``
frames then exactly one ``response`` or ``error`` frame (none after a cancel); a count
is answered by one ``counts`` frame (the priming and each message's tokens) or an error::

    {"id": 7, "kind": "chunk", "text": "..."}
    {"id": 7, "kind": "restart", "reason": "...", "attempt": 2}
    {"id": 7, "kind": "response", "response": {LLMResponse}}
    {"id": 7, "kind": "error", "error": {"type": "LLMTransientError", "message": ..., ...}}
    {"id": 8, "kind": "counts", "priming": 3, "counts": [12, 40]}
    {"id": 9, "kind": "facts", "facts": {ModelFacts} | null}
    {"id": 10, "kind": "models", "known": {KnownModels}}
    {"id": 11, "kind": "warm", "litellm": true}

``check`` runs the checks made before a run's first call (``agent.llm.model_check``): its
error is an ``LLMSetupError``. ``models`` is litellm's part of ``agent.llm.available``
(``from_file``: read from litellm's list file, without importing it).
``warm`` loads now what the config's calls need (litellm, unless ``openai_http`` makes
them) and says whether litellm is loaded.

A ``chunk`` carries the text of one or more of the provider's pieces: the worker joins
pieces that come within 10 ms of each other.

Plus the envelope's frames that belong to no request: ``{"kind": "ready"}`` once the
worker's own modules are loaded (litellm is not, yet), and ``{"kind": "log", ...}`` so
the worker's warnings reach the server's own log handlers (stderr, the JSONL file).

Frames are plain dicts rather than pydantic models: a stream sends hundreds of chunks
a second and each one is decoded on the server's event loop. What crosses with a
shape of its own (the config, the final response) is validated with its model.
"""

from __future__ import annotations

from typing import Any

from agentls.agent.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMError,
    LLMSetupError,
    LLMStreamInterrupted,
    LLMTransientError,
)

_ERROR_TYPES: dict[str, type[LLMError]] = {
    cls.__name__: cls
    for cls in (
        LLMError,
        LLMTransientError,
        LLMAuthError,
        LLMBadRequestError,
        LLMSetupError,
        LLMStreamInterrupted,
    )
}


def error_to_wire(exc: BaseException) -> dict[str, Any]:
    """An exception from the adapter as an error payload (any other exception: LLMError)."""
    if not isinstance(exc, LLMError):
        return {"type": "LLMError", "message": f"the model call failed: {exc!r}"}
    payload: dict[str, Any] = {
        "type": type(exc).__name__ if type(exc).__name__ in _ERROR_TYPES else "LLMError",
        "message": str(exc),
        "provider": exc.provider,
        "status_code": exc.status_code,
        "attempts": exc.attempts,
    }
    if isinstance(exc, LLMStreamInterrupted):
        payload["partial_text"] = exc.partial_text
    return payload


def error_from_wire(payload: dict[str, Any]) -> LLMError:
    """The exception an error payload stands for, of the same ``LLMError`` class."""
    cls = _ERROR_TYPES.get(str(payload.get("type")), LLMError)
    message = str(payload.get("message") or "the model call failed")
    provider = payload.get("provider")
    status_code = payload.get("status_code")
    if cls is LLMStreamInterrupted:
        return LLMStreamInterrupted(
            message,
            partial_text=str(payload.get("partial_text") or ""),
            provider=provider,
            status_code=status_code,
        )
    return cls(
        message,
        provider=provider,
        status_code=status_code,
        attempts=int(payload.get("attempts") or 1),
    )
