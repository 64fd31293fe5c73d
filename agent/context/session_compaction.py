"""``/compact``: the conversation of a session, summarised now, at the user's request.

The model writes the summary of the whole conversation (a bounded transcript of it); the
session records it, and every later run of the session starts from the summary instead
of the messages it replaced. The messages stay in the file: ``agent/session`` still shows
them, and a checkpoint restore still knows the runs.
"""

from __future__ import annotations

from agentls.agent.context.summary import SUMMARY_SYSTEM_PROMPT, bounded_transcript
from agentls.agent.errors import AgentError
from agentls.agent.llm.protocol import LLM
from agentls.agent.sessions.recorder import SessionRecorder


async def compact_session(recorder: SessionRecorder, llm: LLM) -> str:
    """Summarise the session's conversation; what to tell the user."""
    history = recorder.history()
    if len(history) < 2:
        return "Nothing to compact yet: this conversation has no earlier turns."
    request = [
        {"role": "system", "content": SUMMARY_SYSTEM_PROMPT},
        {
            "role": "user",
            "content": "Summarise this conversation so the agent can continue it:\n\n"
            + bounded_transcript(history),
        },
    ]
    response = await llm.completion(request)
    summary = (response.content or "").strip()
    if not summary:
        raise AgentError("the model returned no summary; the conversation was not compacted")
    await recorder.compaction(summary, len(history))
    return (
        f"Compacted the conversation ({len(history)} messages) into a summary; the next "
        "run of this session starts from it."
    )
