"""The built-in tools as the model first sees them, without importing them.

Every model call sends each tool's name, description and JSON schema, and a run's first
call comes before any tool runs; building them means importing every tool's module (its
search, patch and command machinery) and building its arguments model: ~60 ms before
the first model request. ``catalog.json`` holds what the code gives (``python -m
agentls.agent.tools.catalog`` writes it, with ``--check`` says whether it is current, as
a unit test does), and each built-in tool but ``delegate`` (whose description lists the
config's agents) is a ``LazyTool``: its schema and class attributes from the file, the
tool itself imported at its first use beyond them, which is its first call.
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.tools.base import AnyTool, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agentls.agent.config.models import AgentConfig
    from agentls.agent.tools.base import RunContext

CATALOG_PATH = Path(__file__).with_name("catalog.json")

#: The built-in tools that can wait (module, class), in the order the model is shown
#: them; ``delegate`` is made at once (``agentls.agent.tools.builtin_tools``).
LAZY_TOOLS: tuple[tuple[str, str], ...] = (
    ("agentls.agent.tools.files", "ReadFileTool"),
    ("agentls.agent.tools.files", "WriteFileTool"),
    ("agentls.agent.tools.files", "DeleteFileTool"),
    ("agentls.agent.tools.files", "ListFilesTool"),
    ("agentls.agent.tools.edit", "EditFileTool"),
    ("agentls.agent.tools.edit", "ApplyPatchTool"),
    ("agentls.agent.tools.search", "SearchCodeTool"),
    ("agentls.agent.tools.search", "GrepTool"),
    ("agentls.agent.tools.search", "FindFilesTool"),
    ("agentls.agent.tools.symbols", "FindSymbolTool"),
    ("agentls.agent.tools.symbols", "FindReferencesTool"),
    ("agentls.agent.tools.navigate", "NavigateCodeTool"),
    ("agentls.agent.tools.rename", "RenameSymbolTool"),
    ("agentls.agent.tools.problems", "GetProblemsTool"),
    ("agentls.agent.tools.exec", "ExecuteCommandTool"),
    ("agentls.agent.tools.exec", "PythonExecutorTool"),
    ("agentls.agent.tools.interaction", "UpdatePlanTool"),
    ("agentls.agent.tools.interaction", "AskUserTool"),
    ("agentls.agent.tools.skills", "LoadSkillTool"),
)

#: The constructor arguments a tool is made with, each a variant of its schema (the
#: patch format ``apply_patch``'s description leads with); one variant, ``""``, for
#: the tools made without arguments.
VARIANTS: dict[str, tuple[str, ...]] = {"ApplyPatchTool": ("unified", "v4a")}

#: The class attributes the engine reads of a tool before or around a call.
FLAGS = ("sensitive", "edits_files", "interruptible", "editable_arg")


def tool_class(module: str, name: str) -> type[AnyTool]:
    cls: type[AnyTool] = getattr(importlib.import_module(module), name)
    return cls


def made(cls: type[AnyTool], variant: str) -> AnyTool:
    return cls(variant) if variant else cls()  # type: ignore[call-arg]


def catalog_text() -> str:
    """What ``catalog.json`` should hold: each lazy tool's name, flags and schemas."""
    entries = []
    for module, name in LAZY_TOOLS:
        cls = tool_class(module, name)
        variants = VARIANTS.get(name, ("",))
        entries.append(
            {
                "module": module,
                "class": name,
                "name": cls.name,
                "description": cls.description,
                "flags": {flag: getattr(cls, flag) for flag in FLAGS},
                "schemas": {variant: made(cls, variant).schema() for variant in variants},
            }
        )
    return json.dumps({"tools": entries}, indent=1, ensure_ascii=False) + "\n"


@functools.cache
def _catalog() -> dict[str, dict[str, Any]]:
    data = json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
    return {entry["class"]: entry for entry in data["tools"]}


@functools.cache
def _lazy_class(name: str) -> type[LazyTool]:
    """A ``LazyTool`` class for the tool class ``name``, with its name, description and
    flags as class attributes (where the engine reads them), its module not imported."""
    entry = _catalog()[name]
    attributes = {"name": entry["name"], "description": entry["description"], **entry["flags"]}
    return type(f"Lazy{name}", (LazyTool,), {**attributes, "__doc__": LazyTool.__doc__})


def lazy_tools(variants: dict[str, str] | None = None) -> list[AnyTool]:
    """The lazy built-in tools; ``variants`` picks a tool's constructor argument by its
    class name (``{"ApplyPatchTool": "v4a"}``)."""
    chosen = variants or {}
    tools: list[AnyTool] = []
    for module, name in LAZY_TOOLS:
        variant = chosen.get(name, VARIANTS.get(name, ("",))[0])
        tools.append(_lazy_class(name)(module, name, variant))
    return tools


class LazyTool(Tool[Any]):
    """A built-in tool whose module is imported at its first use beyond its schema."""

    def __init__(self, module: str, cls: str, variant: str) -> None:
        self._module = module
        self._cls = cls
        self._variant = variant
        self._real: AnyTool | None = None

    def real(self) -> AnyTool:
        """The tool itself, made the first time it is needed."""
        if self._real is None:
            self._real = made(tool_class(self._module, self._cls), self._variant)
        return self._real

    @property
    def args_model(self) -> type[BaseModel]:  # type: ignore[override]
        return self.real().args_model

    def schema(self) -> dict[str, Any]:
        return copy.deepcopy(_catalog()[self._cls]["schemas"][self._variant])

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        return await self.real().run(args, ctx)

    def auto_approval(self, args: dict[str, Any], agent: AgentConfig) -> str:
        return self.real().auto_approval(args, agent)

    def shell_command(self, args: dict[str, Any]) -> str | None:
        return self.real().shell_command(args)

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        return self.real().target_paths(args)

    def suggested_rule(self, args: dict[str, Any]) -> str | None:
        return self.real().suggested_rule(args)

    async def describe_for_approval(self, args: Any, run: RunContext) -> tuple[str, str]:
        return await self.real().describe_for_approval(args, run)

    def summarize_args(self, args: dict[str, Any]) -> dict[str, Any]:
        return self.real().summarize_args(args)

    def __getattr__(self, attribute: str) -> Any:
        # What only the tool's own class has (a helper a test or a front end calls).
        if attribute.startswith("__") or attribute in ("_real", "_module", "_cls", "_variant"):
            raise AttributeError(attribute)
        return getattr(self.real(), attribute)


def main(argv: list[str] | None = None) -> int:
    from agentls import generated_files

    return generated_files.main(
        "agentls.agent.tools.catalog", lambda: {CATALOG_PATH: catalog_text()}, argv
    )


if __name__ == "__main__":
    sys.exit(main())
