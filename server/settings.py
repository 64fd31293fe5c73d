"""The server's configuration, layered, filtered by the folder's trust, always valid.

Layers, lowest first: defaults < the user config < ``.agentls.yaml`` in the workspace
root (whole when the folder is trusted, else only what cannot widen anything) <
``initializationOptions`` < ``workspace/didChangeConfiguration`` (``settings.agentls``),
every layer with the shape of the YAML file (``agent.config.loader``).

Whether the folder is trusted: the editor says so when it has a trust model of its own
(VS Code's Workspace Trust: ``initializationOptions.workspaceTrusted`` and the
``agent/workspaceTrust`` notification when the user grants it); otherwise the user's
trust list decides (``agentls trust``), read again before each run so that trusting a
folder from a terminal needs no restart.

An invalid layer never replaces a valid config: ``SettingsManager`` keeps the last valid
one (or the defaults) and returns the ``ConfigError`` text, which names the bad key, for
the server to show the user.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.errors import ConfigError

if TYPE_CHECKING:
    from agentls.agent.config.loader import LoadedConfig
    from agentls.agent.config.models import AppConfig

# agent.config.models (pydantic and the models) is imported by the methods that need it, so
# that ``plain`` is cheap to import at start-up.

log = logging.getLogger(__name__)

SETTINGS_SECTION = "agentls"
#: The key of ``initializationOptions`` by which an editor with its own trust model
#: (VS Code) says whether the folder is trusted; not a config key.
TRUST_OPTION = "workspaceTrusted"


@dataclass(frozen=True)
class SettingsUpdate:
    """What a (re)load produced: the config now in force and the error, if any."""

    config: AppConfig
    error: str | None = None
    changed: bool = False


def plain(value: Any) -> Any:
    """JSON-like data (dicts and lists) from LSP's untyped values (``initializationOptions``,
    ``settings``, ``experimental`` capabilities), whatever shape pygls hands them over in."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def agentls_capability(caps: Any, name: str) -> Any:
    """What the client declared as ``experimental.agentls.<name>`` in its capabilities
    (an lsprotocol ``ClientCapabilities`` or None), or None."""
    experimental = plain(getattr(caps, "experimental", None))
    agentls = experimental.get("agentls") if isinstance(experimental, dict) else None
    return agentls.get(name) if isinstance(agentls, dict) else None


class SettingsManager:
    """Holds the effective AppConfig of the server, the layers it came from and the trust
    it was filtered by."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else Path.cwd()
        self._init_options: dict[str, Any] = {}
        self._client_settings: dict[str, Any] = {}
        #: The workspace's .agentls.yaml is skipped until the server restarts (it was
        #: broken at start-up while the folder was trusted).
        self._skip_workspace_file = False
        #: The editor's own trust decision; None when the trust list decides.
        self.editor_trust: bool | None = None
        self._trusted = False
        self.report: LoadedConfig | None = None
        self.config = self._defaults()

    def _defaults(self) -> AppConfig:
        from agentls.agent.config.models import AppConfig

        config = AppConfig()
        config.workspace.root = self.root.resolve()
        return config

    @property
    def trusted(self) -> bool:
        """The trust the config in force was loaded with."""
        return self._trusted

    def _current_trust(self) -> bool:
        if self.editor_trust is not None:
            return self.editor_trust
        from agentls.agent.config.trust import TrustStore

        try:
            return TrustStore().is_trusted(self.root)
        except ConfigError as exc:
            log.warning("%s; the folder counts as not trusted", exc)
            return False

    def initialize(self, root: Path | None, init_options: Any) -> SettingsUpdate:
        """First load, at ``initialize``: the YAML files and the client's initializationOptions."""
        if root is not None:
            self.root = root
        self.config = self._defaults()
        options = plain(init_options)
        error: str | None = None
        if options is not None and not isinstance(options, dict):
            error = "initializationOptions: must be an object with the shape of .agentls.yaml"
            options = {}
        options = dict(options or {})
        trust = options.pop(TRUST_OPTION, None)
        if isinstance(trust, bool):
            self.editor_trust = trust
        elif trust is not None:
            error = f"initializationOptions.{TRUST_OPTION}: must be true or false"
        self._init_options = options
        self._trusted = self._current_trust()
        update = self._reload("initializationOptions")
        if update.error is not None:
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

    def set_editor_trust(self, trusted: bool) -> SettingsUpdate:
        """The editor's trust changed (VS Code: the user granted Workspace Trust)."""
        self.editor_trust = trusted
        return self.refresh_trust()

    def refresh_trust(self) -> SettingsUpdate:
        """Reload when the folder's trust changed since the config was loaded (the trust
        list is edited by ``agentls trust`` in other processes)."""
        trusted = self._current_trust()
        if trusted == self._trusted:
            return SettingsUpdate(self.config)
        self._trusted = trusted
        self._skip_workspace_file = False
        return self._reload("trust")

    def _fallback(self) -> AppConfig | None:
        """At start-up, when a layer is invalid: without the initializationOptions (they
        were wrong), else without the workspace file (it was broken), else nothing."""
        options = self._init_options
        for drop_options, skip_file in ((True, False), (False, True), (True, True)):
            self._init_options = {} if drop_options else options
            self._skip_workspace_file = skip_file
            try:
                return self._load("initializationOptions").config
            except ConfigError:
                continue
        self._init_options = options
        self._skip_workspace_file = False
        return None

    def _load(self, source: str) -> LoadedConfig:
        from agentls.agent.config.loader import deep_merge, load

        overrides = deep_merge(self._init_options, self._client_settings)
        report = load(
            self.root,
            overrides=overrides or None,
            overrides_source=source,
            trusted=self._trusted,
            workspace_file=not self._skip_workspace_file,
        )
        self.report = report
        return report

    def _reload(self, source: str) -> SettingsUpdate:
        try:
            config = self._load(source).config
        except ConfigError as exc:
            log.warning("invalid configuration, keeping the last valid one: %s", exc)
            return SettingsUpdate(self.config, str(exc))
        changed = config != self.config
        self.config = config
        return SettingsUpdate(config, None, changed)
