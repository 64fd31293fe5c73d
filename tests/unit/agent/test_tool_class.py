"""How a tool class states its name and description (``Tool.__init_subclass__``)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from agentls.agent.tools import builtin_tools
from agentls.agent.tools.base import Tool, ToolContext, ToolResult


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


def test_the_docstring_is_the_description_folded_to_one_paragraph() -> None:
    class Echo(Tool[_Args], name="echo"):
        """Say the words back,
        unchanged.    Twice."""

        async def run(self, args: _Args, ctx: ToolContext) -> ToolResult:
            return ToolResult.ok("")

    assert Echo.name == "echo"
    assert Echo.description == "Say the words back, unchanged. Twice."
    assert Echo().schema()["function"]["description"] == Echo.description
    assert Echo.args_model is _Args


def test_a_computed_description_wins_over_the_docstring() -> None:
    class Echo(Tool[_Args], name="echo"):
        """For developers only."""

        description = "For the model."

        async def run(self, args: _Args, ctx: ToolContext) -> ToolResult:
            return ToolResult.ok("")

    assert Echo.description == "For the model."


def test_a_named_tool_without_a_description_is_refused() -> None:
    with pytest.raises(TypeError, match="'mute' needs a docstring"):

        class Mute(Tool[_Args], name="mute"):
            async def run(self, args: _Args, ctx: ToolContext) -> ToolResult:
                return ToolResult.ok("")


def test_every_builtin_description_is_one_clean_paragraph() -> None:
    for tool in builtin_tools():
        assert tool.description == " ".join(tool.description.split()), tool.name
        assert tool.description and tool.name


def test_a_schema_is_made_once_and_each_caller_gets_its_own_copy() -> None:
    class EchoArgs(BaseModel):
        text: str

    class Echo(Tool[EchoArgs], name="echo_copy"):
        """Echo the text."""

        async def run(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
            return ToolResult.ok(args.text)

    first = Echo().schema()
    assert first["function"]["parameters"]["properties"] == {"text": {"type": "string"}}
    first["function"]["parameters"]["properties"]["text"]["type"] = "changed by a caller"
    second = Echo().schema()
    assert second["function"]["parameters"]["properties"]["text"] == {"type": "string"}
