"""``agent.tools.catalog``: the built-in tools the model is shown before any runs, their
modules imported at their first call."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentls import generated_files
from agentls.agent.tools import builtin_tools
from agentls.agent.tools.catalog import (
    CATALOG_PATH,
    FLAGS,
    LAZY_TOOLS,
    VARIANTS,
    LazyTool,
    catalog_text,
    lazy_tools,
    made,
    tool_class,
)


def test_the_catalog_is_what_the_code_gives() -> None:
    assert generated_files.stale({CATALOG_PATH: catalog_text()}) == [], (
        "run `python -m agentls.agent.tools.catalog`"
    )


@pytest.mark.parametrize(
    ("module", "name", "variant"),
    [(m, n, v) for m, n in LAZY_TOOLS for v in VARIANTS.get(n, ("",))],
)
def test_a_lazy_tool_shows_what_the_tool_itself_shows(module: str, name: str, variant: str) -> None:
    real = made(tool_class(module, name), variant)
    lazy = next(t for t in lazy_tools({name: variant}) if t.name == real.name)
    assert isinstance(lazy, LazyTool)
    # The very bytes the model is sent.
    assert json.dumps(lazy.schema()) == json.dumps(real.schema())
    assert lazy.description == real.description
    for flag in FLAGS:
        assert getattr(lazy, flag) == getattr(real, flag), flag
    assert lazy.args_model is real.args_model
    assert lazy.summarize_args({"path": "a.py"}) == real.summarize_args({"path": "a.py"})


def test_each_caller_gets_its_own_copy_of_a_schema() -> None:
    tool = lazy_tools()[0]
    first = tool.schema()
    first["function"]["name"] = "changed by a caller"
    assert tool.schema()["function"]["name"] == tool.name


def test_the_patch_format_the_config_chose_leads_apply_patchs_description() -> None:
    from agentls.agent.config.models import AppConfig

    config = AppConfig.model_validate({"llm": {"model": "openai/gpt-5-mini"}})
    schema = next(t.schema() for t in builtin_tools(config) if t.name == "apply_patch")
    assert schema["function"]["description"].startswith("Edit files with a patch. Write V4A")


SHOWN_NOT_IMPORTED = """
import json, sys
from agentls.agent.config.models import AppConfig
from agentls.agent.tools import build_registry

registry = build_registry(AppConfig())
schemas = registry.get_schemas()
flags = [t.sensitive for t in registry.tools()]
before = sorted(m for m in sys.modules if m.startswith("agentls.agent.tools."))
registry.get("read_file").args_model
after = sorted(m for m in sys.modules if m.startswith("agentls.agent.tools."))
print(json.dumps({"tools": len(schemas), "before": before, "after": after}))
"""


def test_the_tools_are_shown_before_their_modules_are_imported() -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-c", SHOWN_NOT_IMPORTED],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["tools"] == len(LAZY_TOOLS) + 1  # and delegate
    lazy_modules = {module for module, _ in LAZY_TOOLS}
    assert not lazy_modules & set(out["before"]), out["before"]
    assert "agentls.agent.tools.files" in out["after"]
