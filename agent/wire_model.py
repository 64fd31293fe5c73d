"""``WireModel``: the base of every message of agentls's protocols (camelCase on the wire,
unknown keys refused). Low in agent/'s layers so that any package may shape what it puts
on the wire (``agent.llm.available``'s catalog); ``agent.contract`` re-exports it."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """A message of the protocol: camelCase on the wire, unknown keys refused."""

    # Each message's validator is built when it is first used: a front end imports the
    # whole protocol, and a session uses a few of its messages.
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        defer_build=True,
    )

    #: Whether ``to_wire`` leaves out the optional fields that are unset (None).
    omit_none: ClassVar[bool] = True

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict that goes on the wire."""
        return self.model_dump(mode="json", exclude_none=self.omit_none)
