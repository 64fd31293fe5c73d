"""What level 2 asks the model for: the summary prompts, and the bounded transcript
sent instead of the conversation when the history is already over the limit."""

from __future__ import annotations

from collections.abc import Sequence

from agentls.agent.context.messages import Message
from agentls.agent.context.units import message_text

# The transcript handed to the summariser is itself bounded: each message is cut to
# this many characters, since what matters is what was done, not every byte read.
_TRANSCRIPT_ENTRY_CHARS = 1200

SUMMARY_SYSTEM_PROMPT = """\
You compress the history of a coding agent so it can keep working without losing the \
thread. Write a summary of about 200 words, in plain prose or short bullets, covering:
- what has been done so far, step by step in brief;
- the files read, created or modified (exact paths);
- decisions taken and facts learned that later steps rely on (names, errors, results);
- what remains to be done to finish the task.
Do not invent anything that is not in the transcript. Reply with the summary only."""

# Asked at the end of the conversation itself, so the request extends the previous
# one and the provider's prompt cache serves everything before it.
SUMMARY_REQUEST = """\
Pause the task: the conversation above is about to be shortened. Write a summary of \
about 200 words, in plain prose or short bullets, covering:
- what has been done so far, step by step in brief;
- your current plan;
- the files read, created or modified (exact paths) and their latest state as far as it \
matters for the rest of the task;
- decisions taken and facts learned that later steps rely on (names, errors, results);
- what remains to be done to finish the task.
Do not call any tool. Do not invent anything. Reply with the summary only."""


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" [... {len(text) - limit} characters omitted]"


def bounded_transcript(messages: Sequence[Message]) -> str:
    """The older messages as readable text for the summariser."""
    lines: list[str] = []
    for message in messages:
        role = message.get("role")
        text = message_text(message)
        if role == "assistant":
            if text:
                lines.append(f"Assistant: {_clip(text, _TRANSCRIPT_ENTRY_CHARS)}")
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                lines.append(
                    "Tool call "
                    f"{function.get('name', '?')}"
                    f"({_clip(str(function.get('arguments', '')), 300)})"
                )
        elif role == "tool":
            lines.append(f"Tool result: {_clip(text, _TRANSCRIPT_ENTRY_CHARS)}")
        else:
            lines.append(f"{str(role).capitalize()}: {_clip(text, _TRANSCRIPT_ENTRY_CHARS)}")
    return "\n".join(lines)
