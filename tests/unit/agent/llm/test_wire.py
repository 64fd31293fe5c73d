"""The worker protocol's frames: errors keep their class, fields and message."""

from __future__ import annotations

import pytest

from agentls.agent.llm import (
    LLMAuthError,
    LLMBadRequestError,
    LLMStreamInterrupted,
    LLMTransientError,
)
from agentls.agent.llm.wire import decode, encode, error_from_wire, error_to_wire


def test_error_payloads_round_trip_every_class() -> None:
    cases = [
        LLMAuthError("no key", provider="openai", status_code=401),
        LLMBadRequestError("bad", status_code=400, attempts=2),
        LLMTransientError("slow", status_code=503, attempts=3),
        LLMStreamInterrupted("broke", partial_text="half"),
        ValueError("not ours"),
    ]
    for exc in cases:
        back = error_from_wire(error_to_wire(exc))
        if isinstance(exc, ValueError):
            assert type(back).__name__ == "LLMError" and "not ours" in str(back)
            continue
        assert type(back) is type(exc) and str(back) == str(exc)
        assert (back.status_code, back.attempts) == (exc.status_code, exc.attempts)
    interrupted = error_from_wire(error_to_wire(cases[3]))
    assert isinstance(interrupted, LLMStreamInterrupted) and interrupted.partial_text == "half"


def test_frames_are_single_ascii_lines() -> None:
    frame = {"id": 1, "kind": "chunk", "text": "line one\nligne deux é 你好"}
    line = encode(frame)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
    assert decode(line) == frame
    with pytest.raises(ValueError):
        decode(b"[1, 2]\n")
    with pytest.raises(ValueError):
        decode(b"not json\n")
