"""``FolderSettings``: a folder's settings layers, its trust, and the config in force.

Layers, lowest first (``agent.config.loader`` combines them): defaults < the user config <
the workspace's ``.agentls.yaml`` (whole when the folder is trusted, else only what cannot
widen anything), or instead a file the user named (``--config``) < the front end's own
layers: the command line's flags, then what an editor sends (its initialization options,
then its settings as they change). Every layer has the shape of the YAML file.

Whether the folder is trusted: the editor says so when it has a trust model of its own
(VS Code's Workspace Trust); otherwise the user's trust list decides (``agentls trust``),
read again before each run (``refresh_trust``) so that trusting a folder from a terminal
needs no restart. A front end that can ask the user the first time (a terminal) uses
``first_run`` and records the answer with ``decide_trust``.

The agents of the folder's agent files (``agent.folder.agent_files``) join the config's
``agents`` whenever it is made, with the trust it is made with, so every reader of
``config.agents`` (the registry of agents, a run, its subagents) sees them; they are read
again before each run (``refresh_trust``), so a new or edited agent file needs no restart.

Two ways to load, as the front ends need them. ``load`` raises the ``ConfigError`` that
names the bad key: a command or a session cannot start on a config it cannot read. The
editor's ``start``/``change``/``refresh_trust`` never do: an invalid layer never
replaces a valid config, the last valid one (or the defaults) stays in force and the
error text comes back in the ``SettingsUpdate`` for the front end to show.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.errors import ConfigError

if TYPE_CHECKING:
    # Named here for the front ends' annotations: they reach the loader only through
    # this module.
    from agentls.agent.config.loader import FirstRun as FirstRun
    from agentls.agent.config.loader import LoadedConfig as LoadedConfig
    from agentls.agent.config.models import AppConfig

# agent.config (pydantic, the models, YAML) is imported by the methods that need it, so
# that a language server can start answering before it is loaded.

log = logging.getLogger(__name__)

#: How messages name the command line's layer.
FLAGS_SOURCE = "command-line flags"


@dataclass(frozen=True)
class SettingsUpdate:
    """What a (re)load produced: the config now in force and the error, if any."""

    config: AppConfig
    error: str | None = None
    changed: bool = False


def command_line_overrides(
    *, model: str | None = None, api_base: str | None = None, stream: bool = True
) -> dict[str, Any]:
    """The layer of the command line's model flags (``--model``, ``--api-base``,
    ``--no-stream``), for the front ends with a command line (the CLI, ``agentls acp``)."""
    llm: dict[str, Any] = {}
    if model:
        llm["model"] = model
    if api_base:
        llm["api_base"] = api_base
    if not stream:
        llm["stream"] = False
    return {"llm": llm} if llm else {}


class FolderSettings:
    """One folder's settings (see the module's doc). ``root`` defaults to the current
    directory; ``config_file`` replaces the workspace's file; ``flags`` is the command
    line's layer."""

    def __init__(
        self,
        root: Path | str | None = None,
        *,
        config_file: Path | str | None = None,
        flags: Mapping[str, Any] | None = None,
        user_file: Path | None = None,
    ) -> None:
        self.root = Path(os.path.abspath(root if root is not None else Path.cwd()))
        self._root_given = root is not None
        self.config_file = Path(config_file) if config_file is not None else None
        self._flags: dict[str, Any] = dict(flags or {})
        self._user_file = user_file
        #: The editor's layers: its initialization options, then its settings.
        self._editor_options: dict[str, Any] = {}
        self._editor_settings: dict[str, Any] = {}
        #: Which editor layer changed last, as messages name it.
        self._editor_source = "editor settings"
        #: The workspace's .agentls.yaml is left out until the editor restarts the server
        #: (it was broken at start-up while the folder was trusted).
        self._skip_workspace_file = False
        #: The editor's own trust decision; None when the trust list decides.
        self.editor_trust: bool | None = None
        self._trusted = False
        #: How the config in force was made (what an untrusted folder's file lost).
        self.report: LoadedConfig | None = None
        self.config = self._defaults()

    # -- what is in force ------------------------------------------------------------------
    @property
    def trusted(self) -> bool:
        """The trust the config in force was loaded with."""
        return self._trusted

    @property
    def editor_grants_trust(self) -> bool:
        """The editor has a trust model of its own: the user trusts the folder there."""
        return self.editor_trust is not None

    def _defaults(self) -> AppConfig:
        from agentls.agent.config.models import AppConfig

        config = AppConfig()
        config.workspace.root = self.root.resolve()
        return config

    def _trust_now(self) -> bool:
        if self.editor_trust is not None:
            return self.editor_trust
        from agentls.agent.config.trust import TrustStore

        try:
            return TrustStore().is_trusted(self.root)
        except ConfigError as exc:
            log.warning("%s; the folder counts as not trusted", exc)
            return False

    # -- a command or a session: load once, errors raised -----------------------------------
    def _decided_trust(self) -> bool:
        """The trust list's answer; an unreadable list is an error the user must see
        (a command would otherwise run untrusted without saying why)."""
        if self.editor_trust is not None:
            return self.editor_trust
        from agentls.agent.config.trust import TrustStore

        return TrustStore().is_trusted(self.root)

    def load(self, *, trusted: bool | None = None) -> LoadedConfig:
        """The folder's config with the trust the user decided (or ``trusted``), made the
        one in force; a ``ConfigError`` names what is wrong."""
        if trusted is None:
            trusted = self._decided_trust()
        report = self._load(trusted=trusted)
        self._trusted = report.trusted
        self.config = report.config
        return report

    def first_run(self) -> FirstRun:
        """The config as far as the user decided about trusting the folder, and whether a
        front end that can ask should ask now (``decide_trust`` records the answer)."""
        from agentls.agent.config.loader import first_run

        found = first_run(self.root, lambda trusted: self._load(trusted=trusted))
        self._trusted = found.loaded.trusted
        self.config = found.loaded.config
        return found

    def decide_trust(self, trusted: bool) -> LoadedConfig:
        """Record the user's answer about this folder (either way) and load with it."""
        from agentls.agent.config.trust import TrustStore

        TrustStore().set_trusted(self.root, trusted)
        return self.load(trusted=trusted)

    # -- an editor: layers that change, never an error raised -------------------------------
    def start(
        self,
        root: Path | None,
        options: Mapping[str, Any],
        *,
        source: str,
        editor_trust: bool | None = None,
    ) -> SettingsUpdate:
        """The first load: the files and the editor's initialization options. When a
        layer is invalid, the config is what loads without the options (they were wrong),
        else without the workspace file (it was broken), else the defaults."""
        if root is not None:
            self.root = Path(os.path.abspath(root))
            self._root_given = True
        self.config = self._defaults()
        self._editor_options = dict(options)
        self._editor_source = source
        self.editor_trust = editor_trust
        self._trusted = self._trust_now()
        update = self._reload()
        if update.error is None:
            return update
        fallback = self._fallback()
        if fallback is not None:
            self.config = fallback
        return SettingsUpdate(self.config, update.error, True)

    def change(self, settings: Mapping[str, Any], *, source: str) -> SettingsUpdate:
        """The editor's settings changed; an invalid layer is kept out."""
        previous, previous_source = self._editor_settings, self._editor_source
        self._editor_settings, self._editor_source = dict(settings), source
        update = self._reload()
        if update.error is not None:  # keep the last valid layer
            self._editor_settings, self._editor_source = previous, previous_source
        return update

    def set_editor_trust(self, trusted: bool) -> SettingsUpdate:
        """The editor's trust changed (VS Code: the user granted Workspace Trust)."""
        self.editor_trust = trusted
        return self.refresh_trust()

    def refresh_trust(self) -> SettingsUpdate:
        """Reload when the folder's trust changed since the config was loaded (the trust
        list is edited by ``agentls trust`` in other processes); else read the agent
        files again (``changed`` when their agents did)."""
        trusted = self._trust_now()
        if trusted == self._trusted:
            return self._reread_agent_files()
        self._trusted = trusted
        self._skip_workspace_file = False
        return self._reload()

    def _fallback(self) -> AppConfig | None:
        options = self._editor_options
        for drop_options, skip_file in ((True, False), (False, True), (True, True)):
            self._editor_options = {} if drop_options else options
            self._skip_workspace_file = skip_file
            try:
                return self._load(trusted=self._trusted).config
            except ConfigError:
                continue
        self._editor_options = options
        self._skip_workspace_file = False
        return None

    def _reload(self) -> SettingsUpdate:
        try:
            config = self._load(trusted=self._trusted).config
        except ConfigError as exc:
            log.warning("invalid configuration, keeping the last valid one: %s", exc)
            return SettingsUpdate(self.config, str(exc))
        changed = config != self.config
        self.config = config
        return SettingsUpdate(config, None, changed)

    # -- agent files -------------------------------------------------------------------------
    @property
    def agent_notices(self) -> tuple[str, ...]:
        """What the agent files of the config in force say (broken files, name clashes)."""
        return tuple(self.report.agent_notices) if self.report is not None else ()

    def _reread_agent_files(self) -> SettingsUpdate:
        report = self.report
        if report is None or report.config is not self.config:
            return SettingsUpdate(self.config)
        config = self.config.model_copy()
        _with_agent_files(report, config)
        if config.agents == self.config.agents:
            report.config = self.config
            return SettingsUpdate(self.config)
        # A new object: a run in flight keeps the agents it started with.
        self.config = report.config = config
        return SettingsUpdate(config, None, True)

    # -- the layers ------------------------------------------------------------------------
    def _load(self, *, trusted: bool) -> LoadedConfig:
        from agentls.agent.config.loader import deep_merge, load

        editor = deep_merge(self._editor_options, self._editor_settings)
        overrides = deep_merge(self._flags, editor)
        source = self._editor_source if editor else FLAGS_SOURCE
        report = load(
            self.root if self._root_given else None,
            self.config_file,
            overrides or None,
            overrides_source=source,
            trusted=trusted,
            user_file=self._user_file,
            workspace_file=not self._skip_workspace_file,
        )
        _with_agent_files(report, report.config)
        self.report = report
        return report


def _with_agent_files(report: LoadedConfig, config: AppConfig) -> None:
    """``config.agents``: the settings' own and, under them, the agent files' (read again
    now, with the report's trust); ``report`` gets what the files say and lost."""
    from agentls.agent.folder.agent_files import load_agent_files, without_file_agents

    own = without_file_agents(config.agents)
    found = load_agent_files(config.workspace.root, own, trusted=report.trusted)
    # The settings' `agents:` win a clash (load_agent_files left those files out).
    config.agents = {**found.agents, **own}
    report.config = config
    report.agent_notices = found.notices
    report.ignored_agent_files = found.ignored
