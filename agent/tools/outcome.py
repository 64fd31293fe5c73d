"""Turning an EditOutcome into the ToolResult the model reads: always the truth."""

from __future__ import annotations

from agentls.agent.tools.base import ToolResult
from agentls.agent.workspace import EditOutcome


def _hunks(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers) or "none"


def outcome_result(outcome: EditOutcome, done: str) -> ToolResult:
    """``done`` says what an applied change did, e.g. ``Edited app.py (+3 -1)``."""
    result = _result(outcome, done)
    if outcome.problems and outcome.status in ("applied", "partial"):
        return result.model_copy(update={"output": f"{result.output}\n\n{outcome.problems}"})
    return result


def _result(outcome: EditOutcome, done: str) -> ToolResult:
    where = ", ".join(outcome.paths) or "the file"
    if outcome.status == "applied":
        # The message says what is still open about an applied change (unsaved, under review).
        return ToolResult.ok(f"{done}. {outcome.message}" if outcome.message else done)
    if outcome.status == "rejected":
        detail = f" ({outcome.message})" if outcome.message else ""
        return ToolResult.fail(
            f"The user rejected this change to {where}{detail}. {where} is unchanged. "
            "Do not apply the same change again unless the user asks; adjust your approach "
            "or ask what they want."
        )
    if outcome.status == "partial":
        lines = [f"The user applied only part of this change to {where}."]
        for path in outcome.paths:
            kept = outcome.kept_hunks.get(path, [])
            dropped = outcome.dropped_hunks.get(path, [])
            lines.append(f"{path}: kept hunks {_hunks(kept)}; rejected hunks {_hunks(dropped)}.")
        if outcome.message:
            lines.append(outcome.message)
        lines.append("Read the file again before changing it further.")
        return ToolResult(success=True, output=" ".join(lines))
    if outcome.status == "stale":
        return ToolResult.fail(
            f"Not applied: {where} changed since you read it (edited in the editor or on "
            f"disk). Read it again and redo the change against its current text. {outcome.message}"
        )
    return ToolResult.fail(
        f"The change to {where} failed and nothing was changed: {outcome.message}"
    )
