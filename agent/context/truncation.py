"""Level 1 of context management: every tool result is bounded before it enters the
history (head and tail lines, or head and tail characters for a single huge line)."""

from __future__ import annotations

from agentls.agent.llm.tokens import CHARS_PER_TOKEN

# Lines kept by level 1 when a result has many lines: the start of a file usually says
# what it is (imports, headings) and the end where it stops.
HEAD_LINES = 40
TAIL_LINES = 20
# Room left for the character marker so a cut result stays within its budget.
_CHAR_MARKER_RESERVE = 50


def truncate_text(content: str, max_tokens: int) -> str:
    """Level 1 as a pure function: bound ``content`` to about ``max_tokens * 4`` chars.

    Many lines keep the first 40 and last 20 with ``[... N lines omitted ...]``. When
    that is still too long (very long lines) or there are few lines (a minified file),
    the text is cut by characters instead, so the result never exceeds the budget.
    """
    if max_tokens <= 0:
        return content
    max_chars = max_tokens * CHARS_PER_TOKEN
    if len(content) <= max_chars:
        return content
    lines = content.split("\n")
    if len(lines) > HEAD_LINES + TAIL_LINES:
        omitted = len(lines) - HEAD_LINES - TAIL_LINES
        by_lines = (
            "\n".join(lines[:HEAD_LINES])
            + f"\n[... {omitted} lines omitted ...]\n"
            + "\n".join(lines[-TAIL_LINES:])
        )
        if len(by_lines) <= max_chars:
            return by_lines
    budget = max(max_chars - _CHAR_MARKER_RESERVE, 0)
    head = budget * 2 // 3
    tail = budget - head
    omitted_chars = len(content) - head - tail
    tail_text = content[len(content) - tail :] if tail else ""
    return content[:head] + f"\n[... {omitted_chars} characters omitted ...]\n" + tail_text
