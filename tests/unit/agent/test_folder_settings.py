"""A folder's settings as every front end gets them from its engine: the layers in order,
trust from the editor or the user's list (refreshed before a run), the first-run decision,
and an invalid layer that never replaces a valid config."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agentls.agent.config.trust import TrustStore
from agentls.agent.errors import ConfigError
from agentls.agent.folder.settings import FolderSettings, command_line_overrides


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    # llm.api_base widens what the folder may do: it applies only when trusted.
    write(root / ".agentls.yaml", {"llm": {"api_base": "http://127.0.0.1:9/v1"}})
    return root


def test_the_layers_in_order(folder: Path, user_config_dir: Path) -> None:
    write(user_config_dir / "config.yaml", {"llm": {"model": "openai/mine", "timeout": 7}})
    settings = FolderSettings(folder, flags=command_line_overrides(model="openai/flag"))
    loaded = settings.decide_trust(True)
    assert loaded.config.llm.model == "openai/flag"  # the flags over the user's config
    assert loaded.config.llm.timeout == 7  # the user's config under them
    assert loaded.config.llm.api_base == "http://127.0.0.1:9/v1"  # the trusted file
    # The editor's layers go over the flags, its settings over its options.
    update = settings.start(
        folder, {"llm": {"model": "openai/options"}}, source="initializationOptions"
    )
    assert update.error is None and update.config.llm.model == "openai/options"
    update = settings.change({"llm": {"model": "openai/settings"}}, source="settings")
    assert update.changed and update.config.llm.model == "openai/settings"
    assert settings.config is update.config


def test_a_named_config_file_replaces_the_workspaces(folder: Path, tmp_path: Path) -> None:
    own = tmp_path / "mine.yaml"
    write(own, {"llm": {"timeout": 3}})
    config = FolderSettings(folder, config_file=own).load(trusted=True).config
    assert config.llm.timeout == 3 and config.llm.api_base is None


def test_untrusted_the_folder_only_narrows(folder: Path) -> None:
    settings = FolderSettings(folder)
    loaded = settings.load()
    assert not settings.trusted and loaded.config.llm.api_base is None
    assert loaded.ignored == ["llm.api_base"]
    assert settings.report is loaded


def test_trust_from_the_list_is_picked_up_before_a_run(folder: Path) -> None:
    settings = FolderSettings(folder)
    settings.start(folder, {}, source="initializationOptions")
    assert not settings.trusted and settings.config.llm.api_base is None
    # Nothing changed: nothing reloaded.
    assert not settings.refresh_trust().changed
    TrustStore().set_trusted(folder, True)  # `agentls trust` in a terminal
    update = settings.refresh_trust()
    assert update.changed and settings.trusted
    assert update.config.llm.api_base == "http://127.0.0.1:9/v1"


def test_the_editors_trust_decides_over_the_list(folder: Path) -> None:
    TrustStore().set_trusted(folder, True)
    settings = FolderSettings(folder)
    settings.start(folder, {}, source="initializationOptions", editor_trust=False)
    assert not settings.trusted and settings.editor_grants_trust
    update = settings.set_editor_trust(True)
    assert update.changed and settings.trusted


def test_an_invalid_change_keeps_the_last_valid_config(folder: Path) -> None:
    settings = FolderSettings(folder)
    settings.start(folder, {"llm": {"timeout": 5}}, source="initializationOptions")
    update = settings.change({"llm": {"timout": 9}}, source="editor settings")
    assert update.error is not None
    assert "llm.timout: extra field not permitted in editor settings" in update.error
    assert settings.config.llm.timeout == 5
    # The bad layer was left out: the next valid change starts from the good one.
    update = settings.change({"llm": {"stream": False}}, source="editor settings")
    assert update.error is None and update.config.llm.timeout == 5
    assert not update.config.llm.stream


def test_bad_options_at_start_fall_back_to_the_files(folder: Path) -> None:
    settings = FolderSettings(folder)
    update = settings.start(
        folder, {"llm": {"timeout": "soon"}}, source="initializationOptions", editor_trust=True
    )
    assert update.error is not None and "llm.timeout" in update.error
    # Without the options: the trusted workspace file still applies.
    assert settings.config.llm.api_base == "http://127.0.0.1:9/v1"


def test_a_broken_workspace_file_at_start_leaves_the_defaults_and_the_options(
    folder: Path,
) -> None:
    (folder / ".agentls.yaml").write_text("llm: [\n")
    settings = FolderSettings(folder)
    update = settings.start(
        folder, {"llm": {"timeout": 5}}, source="initializationOptions", editor_trust=True
    )
    assert update.error is not None and "invalid YAML" in update.error
    assert settings.config.llm.timeout == 5


def test_load_raises_what_a_command_cannot_run_with(folder: Path) -> None:
    (folder / ".agentls.yaml").write_text("llm:\n  timout: 3\n")
    with pytest.raises(ConfigError, match=r"llm\.timout"):
        FolderSettings(folder).load(trusted=True)


def test_the_first_run_is_undecided_only_where_trust_changes_something(
    folder: Path, tmp_path: Path
) -> None:
    settings = FolderSettings(folder)
    found = settings.first_run()
    assert found.undecided and not found.loaded.trusted
    assert settings.decide_trust(False).trusted is False
    assert not FolderSettings(folder).first_run().undecided  # decided: never asked again
    plain = tmp_path / "plain"
    plain.mkdir()
    assert not FolderSettings(plain).first_run().undecided  # nothing to decide


def test_command_line_overrides() -> None:
    assert command_line_overrides() == {}
    assert command_line_overrides(model="m", api_base="http://b", stream=False) == {
        "llm": {"model": "m", "api_base": "http://b", "stream": False}
    }
