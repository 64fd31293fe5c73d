"""Config models and the layered loader, on real files in tmp dirs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentls.agent.config.docs import (
    SCHEMA_PATH,
    TABLE_BEGIN,
    TABLE_END,
    config_schema,
    config_table,
)
from agentls.agent.config.loader import load_config
from agentls.agent.config.models import AppConfig, EvaluationConfig
from agentls.agent.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]


def test_defaults_are_the_documented_ones() -> None:
    config = AppConfig()
    assert config.llm.model == "gpt-4o"
    assert config.llm.timeout == 60 and config.llm.retries == 2 and config.llm.stream
    assert config.llm.api_key_env == "LITELLM_API_KEY"
    assert config.context.max_tool_result_tokens == 2000
    assert config.context.summarize_after_steps == 0
    assert config.context.keep_recent_steps == 4
    assert config.context.max_context_tokens == 80000
    assert config.evaluation.mode == "off" and config.evaluation.confidence_threshold == 0.8
    assert config.indexer.max_file_size == 1_000_000
    assert config.workspace.allow_delete is False


def test_unknown_key_names_the_path_and_the_file(tmp_path: Path) -> None:
    (tmp_path / ".agentls.yaml").write_text("llm:\n  timout: 5\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, trusted=True)
    assert str(info.value) == "llm.timout: extra field not permitted in .agentls.yaml"


def test_bad_value_names_the_key(tmp_path: Path) -> None:
    (tmp_path / ".agentls.yaml").write_text("evaluation:\n  max_retries: 9\n")
    with pytest.raises(ConfigError, match=r"evaluation\.max_retries: .*5.* in \.agentls\.yaml"):
        load_config(tmp_path, trusted=True)


def test_evaluation_bounds() -> None:
    with pytest.raises(ValueError):
        EvaluationConfig(confidence_threshold=1.5)
    with pytest.raises(ValueError):
        EvaluationConfig(max_retries=0)


def test_invalid_yaml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".agentls.yaml").write_text("llm: [unclosed\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_config(tmp_path, trusted=True)


def test_layers_defaults_file_overrides(tmp_path: Path) -> None:
    (tmp_path / ".agentls.yaml").write_text(
        "llm:\n  model: openai/from-file\n  timeout: 5\ncontext:\n  parallel_tools: false\n"
    )
    config = load_config(tmp_path, overrides={"llm": {"model": "openai/from-editor"}}, trusted=True)
    assert config.llm.model == "openai/from-editor"  # override wins
    assert config.llm.timeout == 5  # file value kept where not overridden
    assert config.context.parallel_tools is False
    assert config.llm.retries == 2  # default
    assert config.workspace.root == tmp_path.resolve()


def test_override_errors_name_their_source(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"llm\.bogus: extra field not permitted in initializationOptions"
    ):
        load_config(
            tmp_path, overrides={"llm": {"bogus": 1}}, overrides_source="initializationOptions"
        )


def test_explicit_config_file(tmp_path: Path) -> None:
    other = tmp_path / "conf" / "team.yaml"
    other.parent.mkdir()
    other.write_text("workspace:\n  root: ..\n  allow_delete: true\n")
    config = load_config(config_file=other)
    assert config.workspace.allow_delete
    assert config.workspace.root == tmp_path.resolve()


def test_inline_token_is_redacted() -> None:
    config = AppConfig.model_validate(
        {"mcp": {"servers": [{"name": "x", "url": "http://127.0.0.1:1/mcp", "token": "s3cret"}]}}
    )
    assert "s3cret" not in repr(config)
    assert "s3cret" not in json.dumps(config.redacted())


def test_shipped_schema_is_current() -> None:
    assert json.loads(SCHEMA_PATH.read_text()) == config_schema(), (
        "run `python -m agentls.agent.config.docs` to regenerate the schema"
    )


def test_readme_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index(TABLE_BEGIN) + len(TABLE_BEGIN) : readme.index(TABLE_END)]
    assert table.strip() == config_table().strip(), "run `python -m agentls.agent.config.docs`"


def test_every_field_is_described() -> None:
    from pydantic import BaseModel

    def walk(model: type[BaseModel]) -> None:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            ann = field.annotation
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                walk(ann)

    walk(AppConfig)
