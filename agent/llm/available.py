"""What a model picker lists: one usable model, and the list with the one in use.

The shape every front end and discovery source shares; the editor's models
(``agent.llm.editor``) are listed through the ``EditorModels`` protocol.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class _Wire(BaseModel):
    # camelCase on the wire, as the protocol's other messages
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
    )


class AvailableModel(_Wire):
    """A model this user can call now."""

    id: str
    label: str
    source: Literal["configured", "server", "provider", "editor"]
    tools: bool | None
    images: bool | None
    context_window: int | None
    input_cost_per_token: float | None
    output_cost_per_token: float | None
    note: str = ""


class ModelCatalog(_Wire):
    current: str
    models: list[AvailableModel]
    problems: list[str]


class EditorModels(Protocol):
    """The models the editor lends (VS Code's language models)."""

    async def list(self) -> list[AvailableModel]: ...
