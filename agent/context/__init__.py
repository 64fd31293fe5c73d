"""The conversation sent to the model, and the three levels that keep it in the window.

``ContextBuilder`` shapes plain OpenAI-format messages: the system prompt (with the
project tree), the user prompt, each step's assistant ``tool_calls`` message followed
by one ``tool`` message per call, and plain assistant/user turns.

``ContextManager`` keeps that list inside the model's context window, in three levels:

1. ``truncate_tool_result`` bounds every tool result before it enters the history
   (head and tail lines, or head and tail characters for a single huge line).
2. ``maybe_compress`` replaces the older steps with a summary written by the model,
   in one block, once the context passes the high-water mark (``compact_at`` of
   ``max_context_tokens``) or, when configured, ``summarize_after_steps`` exchanges.
3. ``enforce_window`` drops the oldest steps when the estimate still exceeds
   ``max_context_tokens``, down to the low-water mark, leaving a marker that says so.

Provider prompt caches reuse the longest prefix a request shares with the previous
one, so between compactions the history only ever grows at its end: nothing is
rewritten in place, and a compaction makes room for many steps at once (down to the
low-water mark ``compact_to``) instead of trimming a little on every step.

Levels 2 and 3 only ever cut between *units*: an assistant message with
``tool_calls`` travels with all of its ``tool`` results (providers reject a call
without its result, or a result without its call), and a plain assistant message
travels with the user messages that answer it. Every level is disabled by a 0.

The package, by concern:

* ``messages``: ``ContextBuilder`` and the shapes of the messages it builds;
* ``truncation``: level 1, one tool result bounded;
* ``units``: the history cut into the units compaction may cut between;
* ``summary``: what level 2 asks the model for, and the bounded transcript;
* ``compaction``: ``ContextManager``, the three levels.
"""

from __future__ import annotations

from agentls.agent.context.compaction import ContextManager, TokenCounter
from agentls.agent.context.messages import (
    PROJECT_STRUCTURE_HEADING,
    ContextBuilder,
    Message,
    format_tool_result,
)
from agentls.agent.context.summary import SUMMARY_REQUEST, SUMMARY_SYSTEM_PROMPT
from agentls.agent.context.truncation import HEAD_LINES, TAIL_LINES, truncate_text
from agentls.agent.context.units import SUMMARY_PREFIX, count_tool_exchanges

__all__ = [
    "HEAD_LINES",
    "PROJECT_STRUCTURE_HEADING",
    "SUMMARY_PREFIX",
    "SUMMARY_REQUEST",
    "SUMMARY_SYSTEM_PROMPT",
    "TAIL_LINES",
    "ContextBuilder",
    "ContextManager",
    "Message",
    "TokenCounter",
    "count_tool_exchanges",
    "format_tool_result",
    "truncate_text",
]
