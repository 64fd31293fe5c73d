"""The server's configuration, layered and always valid.

Layers, lowest first: defaults < ``.agentls.yaml`` in the workspace root <
``initializationOptions`` < ``workspace/didChangeConfiguration`` (``settings.agentls``),
every layer with the shape of the YAML file. An invalid layer never replaces a valid
config: ``SettingsManager`` keeps the last valid one (or the defaults) and returns the
``ConfigError`` text, which names the bad key, for the server to show the user.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.errors import ConfigError

if TYPE_CHECKING:
    from agentls.agent.config import AppConfig

# agent.config (pydantic and the models) is imported by the methods that need it, so
# that ``plain`` is cheap to import at start-up.

log = logging.getLogger(__name__)

SETTINGS_SECTION = "agentls"


@dataclass(frozen=True)
class SettingsUpdate:
    """What a (re)load produced: the config now in force and the error, if any."""

    config: AppConfig
    error: str | None = None
    changed: bool = False


def plain(value: Any) -> Any:
    """JSON-like data from what pygls hands over (namedtuples for untyped params)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


class SettingsManager:
    """Holds the effective AppConfig of the server and the layers it came from."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else Path.cwd()
        self._init_options: dict[str, Any] = {}
        self._client_settings: dict[str, Any] = {}
        self._yaml_broken = False
        self.config = self._defaults()

    def _defaults(self) -> AppConfig:
        from agentls.agent.config import AppConfig

        config = AppConfig()
        config.workspace.root = self.root.resolve()
        return config

    def initialize(self, root: Path | None, init_options: Any) -> SettingsUpdate:
        """First load, at ``initialize``: the YAML file and the client's initializationOptions."""
        if root is not None:
            self.root = root
        self.config = self._defaults()
        options = plain(init_options)
        error: str | None = None
        if options is not None and not isinstance(options, dict):
            error = "initializationOptions: must be an object with the shape of .agentls.yaml"
            options = {}
        self._init_options = options or {}
        update = self._reload("initializationOptions")
        if update.error is not None:
            # No valid config yet: drop the broken layer, keep the other one.
            fallback = self._fallback()
            if fallback is not None:
                self.config = fallback
            return SettingsUpdate(self.config, update.error, True)
        if error is not None:
            return SettingsUpdate(update.config, error, update.changed)
        return update

    def change(self, settings: Any) -> SettingsUpdate:
        """``workspace/didChangeConfiguration``: ``settings.agentls`` (or the whole settings)."""
        data = plain(settings)
        if isinstance(data, dict) and SETTINGS_SECTION in data:
            data = data[SETTINGS_SECTION]
        if data is None:
            return SettingsUpdate(self.config)
        if not isinstance(data, dict):
            return SettingsUpdate(
                self.config,
                f"settings.{SETTINGS_SECTION}: must be an object with the shape of .agentls.yaml",
            )
        previous = self._client_settings
        self._client_settings = data
        update = self._reload(f"workspace/didChangeConfiguration settings.{SETTINGS_SECTION}")
        if update.error is not None:
            self._client_settings = previous  # keep the last valid layer
        return update

    def reload_file(self) -> SettingsUpdate:
        """``.agentls.yaml`` changed on disk."""
        return self._reload("initializationOptions")

    def _fallback(self) -> AppConfig | None:
        """At start-up, when one layer is invalid: the YAML file alone if it is valid
        (the initializationOptions were wrong), else the initializationOptions alone."""
        from agentls.agent.config import load_config

        try:
            config = load_config(self.root)
        except ConfigError:
            pass
        else:
            if self._init_options:
                self._init_options = {}
                return config
        try:
            config = self._without_file(self._init_options, "initializationOptions")
        except ConfigError:
            return None
        self._yaml_broken = True
        return config

    def _without_file(self, overrides: dict[str, Any], source: str) -> AppConfig:
        from agentls.agent.config import validate_config

        config = validate_config(overrides, source)
        root = config.workspace.root
        if "root" not in overrides.get("workspace", {}):
            root = self.root
        elif not root.is_absolute():
            root = self.root / root
        config.workspace.root = root.resolve()
        return config

    def _load(self, overrides: dict[str, Any], source: str) -> AppConfig:
        from agentls.agent.config import load_config

        if self._yaml_broken:  # until the server restarts, the broken file is skipped
            return self._without_file(overrides, source)
        return load_config(self.root, overrides=overrides or None, overrides_source=source)

    def _reload(self, source: str) -> SettingsUpdate:
        from agentls.agent.config import deep_merge

        overrides = deep_merge(self._init_options, self._client_settings)
        try:
            config = self._load(overrides, source)
        except ConfigError as exc:
            log.warning("invalid configuration, keeping the last valid one: %s", exc)
            return SettingsUpdate(self.config, str(exc))
        changed = config != self.config
        self.config = config
        return SettingsUpdate(config, None, changed)
