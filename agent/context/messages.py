"""The messages of a run in the OpenAI format the model reads.

``ContextBuilder`` shapes plain OpenAI-format messages: the system prompt (with the
project tree), the user prompt, each step's assistant ``tool_calls`` message followed
by one ``tool`` message per call, and plain assistant/user turns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from agentls.agent.config.models import ContextConfig
from agentls.agent.context.truncation import truncate_text
from agentls.agent.llm.models import LLMResponse, assistant_tool_calls_message
from agentls.agent.tools.base import ToolCallResult

log = logging.getLogger(__name__)

Message = dict[str, Any]

PROJECT_STRUCTURE_HEADING = "## Project structure"


def format_tool_result(result: ToolCallResult) -> str:
    """What the model reads for one call: the output, plus the error when it adds to it."""
    output = result.result.output
    error = result.result.error
    if error and error.strip() != output.strip():
        return f"{output}\n\nError: {error}" if output else f"Error: {error}"
    return output


class ContextBuilder:
    """Builds and extends the message list of a run; every method returns a new list."""

    def __init__(
        self,
        context_config: ContextConfig,
        tree: Callable[[], str | None] | None = None,
    ) -> None:
        self.config = context_config
        self._tree = tree

    def build_initial(self, system_prompt: str, prompt: str) -> list[Message]:
        """``[system, user]``; the project tree is asked for now, so a live index shows
        the files created since the previous run."""
        system = system_prompt
        tree = self._project_tree()
        if tree:
            system = f"{system_prompt}\n\n{PROJECT_STRUCTURE_HEADING}\n{tree}"
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt},
        ]

    def append_tool_results(
        self,
        messages: Sequence[Message],
        response: LLMResponse,
        results: Sequence[ToolCallResult],
    ) -> list[Message]:
        """The assistant's ``tool_calls`` message, then one ``tool`` message per call.

        Results are matched to calls by ``call_id`` when every result carries one,
        otherwise by position; the tool messages follow the order the model asked in.
        A call without a result still gets a tool message, because a dangling call
        makes the provider reject the whole request.
        """
        assistant = assistant_tool_calls_message(response.content, response.tool_calls)
        by_id: dict[str, ToolCallResult] = {}
        if results and all(r.call_id for r in results):
            by_id = {r.call_id: r for r in results}
        out = [*messages, assistant]
        for index, call in enumerate(response.tool_calls):
            match: ToolCallResult | None
            if by_id:
                match = by_id.get(call.id)
            else:
                match = results[index] if index < len(results) else None
            content = (
                format_tool_result(match)
                if match is not None
                else "Error: this tool call was not executed."
            )
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": truncate_text(content, self.config.max_tool_result_tokens),
                }
            )
        return out

    def append_assistant_message(self, messages: Sequence[Message], content: str) -> list[Message]:
        return [*messages, {"role": "assistant", "content": content}]

    def append_user_message(self, messages: Sequence[Message], content: str) -> list[Message]:
        return [*messages, {"role": "user", "content": content}]

    def _project_tree(self) -> str | None:
        if self._tree is None:
            return None
        try:
            tree = self._tree()
        except Exception:
            # A broken index must not stop the run: the model can still list files.
            log.warning("project tree provider failed; prompt sent without a tree", exc_info=True)
            return None
        return tree if tree and tree.strip() else None
