"""The worker protocol's errors keep their class, fields and message (its framing is
child_rpc's: tests/unit/test_child_rpc.py)."""

from __future__ import annotations

from agentls.agent.llm import (
    LLMAuthError,
    LLMBadRequestError,
    LLMStreamInterrupted,
    LLMTransientError,
)
from agentls.agent.llm.wire import error_from_wire, error_to_wire


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
