"""search_code, grep and find_files: the same answers from the live index and from disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from agentls.agent.config.models import AppConfig
from agentls.agent.indexing import index_settings
from agentls.agent.tools.base import RunContext, Tool, ToolContext, ToolResult
from agentls.agent.tools.search import (
    FindFilesArgs,
    FindFilesTool,
    GrepArgs,
    GrepTool,
    SearchCodeArgs,
    SearchCodeTool,
)
from agentls.agent.workspace import DiskFileAccess
from agentls.indexer import IndexWatcher, RepoIndexer


def _put(root: Path, rel: str, content: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    _put(root, ".gitignore", "secret/\n")
    _put(root, "secret/keys.py", "API_KEY = 'def leaked'\n")
    _put(root, "node_modules/lib/index.js", "function def() {}\n")
    _put(root, ".agentls/cache/index.json", '{"def": 1}\n')
    _put(root, "logo.png", b"\x89PNG\x00\x00def")
    _put(
        root,
        "app/main.py",
        "import os\n\n\ndef main():\n    return run()\n\n\ndef run():\n    pass\n",
    )
    _put(root, "app/util.py", "# TODO: tidy\ndef helper(x):\n    return x * 2\n")
    _put(root, "README.md", "Run `main()` to start.\nTODO: docs\n")
    for i in range(30):
        _put(root, f"gen/m{i:02d}.py", f"def gen_{i}():\n    return {i}\n")
    return root


def _ctx(root: Path, index: object = None) -> ToolContext:
    config = AppConfig()
    return ToolContext(RunContext(files=DiskFileAccess(root), config=config, index=index))


def _index(root: Path, **overrides: object) -> object:
    config = AppConfig().indexer.model_copy(update=overrides)
    return RepoIndexer(root, index_settings(config)).build()


async def _call(tool: Tool, ctx: ToolContext, **args: object) -> ToolResult:
    return await tool.run(tool.args_model.model_validate(args), ctx)


CALLS: list[tuple[Tool, dict[str, object]]] = [
    (SearchCodeTool(), {"pattern": r"def \w+\("}),
    (SearchCodeTool(), {"pattern": "return", "path": "app", "context_lines": 0}),
    (SearchCodeTool(), {"pattern": "TODO", "file_pattern": "*", "context_lines": 1}),
    (SearchCodeTool(), {"pattern": "def", "max_results": 5}),
    (GrepTool(), {"pattern": "def"}),
    (GrepTool(), {"pattern": "todo", "case_sensitive": False}),
    (GrepTool(), {"pattern": "def", "path": "app/util.py"}),
    (GrepTool(), {"pattern": "def", "path": "gen", "recursive": False, "max_results": 3}),
    (FindFilesTool(), {"pattern": "*.py"}),
    (FindFilesTool(), {"pattern": "*.{md,png}"}),
    (FindFilesTool(), {"pattern": "*", "path": "app", "recursive": False}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=lambda v: str(v)[:40])
async def test_index_and_disk_give_identical_results(
    workspace: Path, tool: Tool, args: dict[str, object]
) -> None:
    from_disk = await _call(tool, _ctx(workspace), **args)
    from_index = await _call(tool, _ctx(workspace, _index(workspace)), **args)
    from_unheld = await _call(tool, _ctx(workspace, _index(workspace, hold_text=False)), **args)
    assert from_disk.success, from_disk.output
    assert from_disk == from_index == from_unheld
    for hidden in ("secret/", "node_modules", ".agentls", "leaked"):
        assert hidden not in from_disk.output


async def test_output_format(workspace: Path) -> None:
    result = await _call(SearchCodeTool(), _ctx(workspace), pattern="def run", path="app")
    assert result.output.splitlines() == [
        "app/main.py-6- ",
        "app/main.py-7- ",
        "app/main.py:8: def run():",
        "app/main.py-9-     pass",
    ]
    grep = await _call(GrepTool(), _ctx(workspace), pattern="TODO", file_pattern="*.md")
    assert grep.output == "README.md:2: TODO: docs"


async def test_truncation_is_announced(workspace: Path) -> None:
    result = await _call(GrepTool(), _ctx(workspace), pattern="return", max_results=4)
    lines = result.output.splitlines()
    assert lines[-1] == "[results truncated at 4 matches]" and len(lines) == 5


async def test_no_matches_is_success_with_a_clear_message(workspace: Path) -> None:
    result = await _call(GrepTool(), _ctx(workspace), pattern="nowhere-to-be-found")
    assert result.success and result.output.startswith("No matches for 'nowhere-to-be-found'")


async def test_invalid_regex_is_a_failure_quoting_the_error(workspace: Path) -> None:
    result = await _call(SearchCodeTool(), _ctx(workspace), pattern="def (")
    assert not result.success
    assert "missing ), unterminated subpattern" in result.output and "'def ('" in result.output


@pytest.mark.parametrize("tool", [SearchCodeTool(), GrepTool(), FindFilesTool()])
async def test_paths_are_confined(workspace: Path, tool: Tool) -> None:
    for bad in ("../", "/etc", "~/x"):
        result = await _call(tool, _ctx(workspace), pattern="x", path=bad)
        assert not result.success and "refused" in result.output
    missing = await _call(tool, _ctx(workspace), pattern="x", path="nope")
    assert not missing.success and "not found" in missing.output


async def test_tools_use_a_watched_index(workspace: Path) -> None:
    indexer = RepoIndexer(workspace, index_settings(AppConfig().indexer))
    watcher = IndexWatcher(indexer, indexer.build())
    watcher.start()
    try:
        assert await watcher.wait_ready(30)
        _put(workspace, "app/new.py", "def fresh_function():\n    pass\n")
        assert await watcher.settle(30)
        result = await _call(GrepTool(), _ctx(workspace, watcher.index), pattern="fresh_function")
        assert result.output == "app/new.py:1: def fresh_function():"
    finally:
        await watcher.stop()


async def test_index_of_another_root_is_not_used(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    _put(other, "x.py", "def only_elsewhere(): pass\n")
    ctx = _ctx(workspace, RepoIndexer(other).build())
    result = await _call(GrepTool(), ctx, pattern="only_elsewhere")
    assert result.output.startswith("No matches")


@pytest.mark.parametrize("model", [SearchCodeArgs, GrepArgs, FindFilesArgs])
def test_arg_schemas_describe_every_field_and_forbid_extras(model: type[BaseModel]) -> None:
    schema = model.model_json_schema()
    assert schema.get("additionalProperties") is False
    for name, prop in schema["properties"].items():
        assert prop.get("description"), name


def test_tools_are_not_sensitive() -> None:
    for tool in (SearchCodeTool(), GrepTool(), FindFilesTool()):
        assert tool.sensitive is False and tool.edits_files is False
        assert tool.schema()["function"]["name"] == tool.name


def test_settings_translation_keeps_defaults_and_user_values() -> None:
    config = AppConfig().indexer.model_copy(
        update={"exclude_dirs": ["gen"], "exclude_patterns": ["*.csv"], "max_file_size": 10}
    )
    settings = index_settings(config)
    assert "node_modules" in settings.exclude_dirs and "gen" in settings.exclude_dirs
    assert "*.pyc" in settings.exclude_patterns and "*.csv" in settings.exclude_patterns
    assert settings.max_file_size == 10
