"""What LSP adds to the folder's settings (``agent.folder.settings.FolderSettings``).

The editor's two layers come over the wire: ``initializationOptions`` at ``initialize``
and ``settings.agentls`` in ``workspace/didChangeConfiguration``, each with the shape of
``.agentls.yaml``. An editor with a trust model of its own (VS Code's Workspace Trust)
says whether the folder is trusted in ``initializationOptions.workspaceTrusted`` and in
the ``agent/workspaceTrust`` notification when the user grants it; otherwise the user's
trust list decides. This module only reads those messages' untyped shapes; the layers,
the trust and the rule that an invalid layer never replaces a valid config are the
folder engine's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentls.agent.folder.settings import FolderSettings, SettingsUpdate

SETTINGS_SECTION = "agentls"
#: The key of ``initializationOptions`` by which an editor with its own trust model
#: (VS Code) says whether the folder is trusted; not a config key.
TRUST_OPTION = "workspaceTrusted"


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


def start_settings(settings: FolderSettings, root: Path, init_options: Any) -> SettingsUpdate:
    """The first load, at ``initialize``: the files and the client's initializationOptions."""
    from agentls.agent.folder.settings import SettingsUpdate

    options = plain(init_options)
    error: str | None = None
    if options is not None and not isinstance(options, dict):
        error = "initializationOptions: must be an object with the shape of .agentls.yaml"
        options = {}
    options = dict(options or {})
    trust = options.pop(TRUST_OPTION, None)
    if trust is not None and not isinstance(trust, bool):
        error = f"initializationOptions.{TRUST_OPTION}: must be true or false"
    editor_trust = trust if isinstance(trust, bool) else None
    update = settings.start(
        root, options, source="initializationOptions", editor_trust=editor_trust
    )
    if update.error is None and error is not None:
        return SettingsUpdate(update.config, error, update.changed)
    return update


def change_settings(settings: FolderSettings, changed: Any) -> SettingsUpdate:
    """``workspace/didChangeConfiguration``: ``settings.agentls`` (or the whole settings)."""
    from agentls.agent.folder.settings import SettingsUpdate

    data = plain(changed)
    if isinstance(data, Mapping) and SETTINGS_SECTION in data:
        data = data[SETTINGS_SECTION]
    if data is None:
        return SettingsUpdate(settings.config)
    if not isinstance(data, dict):
        return SettingsUpdate(
            settings.config,
            f"settings.{SETTINGS_SECTION}: must be an object with the shape of .agentls.yaml",
        )
    source = f"workspace/didChangeConfiguration settings.{SETTINGS_SECTION}"
    return settings.change(data, source=source)
