"""What the model is told after the editor answered an edit: from the hunks each file
kept and dropped (read back from the editor), one ``EditOutcome``."""

from __future__ import annotations

from collections.abc import Sequence

from agentls.agent.workspace import EditOutcome
from agentls.server.edits import FilePlan


def _hunk_list(indexes: Sequence[int]) -> str:
    return ", ".join(str(i) for i in indexes)


def edit_outcome(
    plans: Sequence[FilePlan],
    kept_by: dict[str, list[int]],
    dropped_by: dict[str, list[int]],
    unknown: list[str],
    notes: list[str],
    paths: list[str],
) -> EditOutcome:
    note = ("; ".join(notes) + ".") if notes else ""
    if unknown:
        return EditOutcome(
            "partial",
            f"the editor reported the edit applied, but {', '.join(unknown)} now holds text "
            "that is neither the proposal nor the old text with some hunks kept; "
            "read it again before changing it. " + note,
            paths,
            kept_by,
            dropped_by,
        )
    edited = [p for p in plans if p.op != "delete"]
    if all(not dropped_by.get(p.path) for p in edited):
        return EditOutcome("applied", note, paths)
    if all(not kept_by.get(p.path) for p in edited) and len(edited) == len(plans):
        return EditOutcome(
            "failed",
            "the editor answered that it applied the edit but "
            f"{', '.join(p.path for p in edited)} did not change; nothing was changed. "
            "Read the file again.",
            paths,
            kept_by,
            dropped_by,
        )
    parts = []
    for plan in edited:
        kept = kept_by.get(plan.path, [])
        dropped = dropped_by.get(plan.path, [])
        if not dropped:
            parts.append(f"{plan.path}: all {len(plan.hunks)} hunks applied")
            continue
        summaries = "; ".join(
            f"hunk {h.index} ({h.summary()})" for h in plan.hunks if h.index in dropped
        )
        parts.append(
            f"{plan.path}: the user kept hunk(s) {_hunk_list(kept) or 'none'} of "
            f"{len(plan.hunks)} and dropped {summaries}"
        )
    return EditOutcome(
        "partial",
        "Only part of the edit was applied. " + ". ".join(parts) + ". " + note,
        paths,
        kept_by,
        dropped_by,
    )
