"""Where agentls keeps what belongs to the user rather than to a workspace.

The user config directory holds ``config.yaml`` (the user's own settings, the layer a
repository can never loosen) and ``trust.json`` (the folders the user trusts and the
workspace MCP servers and hooks the user approved). ``AGENTLS_CONFIG_DIR`` overrides
its place: tests and scripted set-ups point it at a directory of their own.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_DIR_VARIABLE = "AGENTLS_CONFIG_DIR"
USER_CONFIG_FILE = "config.yaml"
APP_NAME = "agentls"


def user_config_dir() -> Path:
    """The user config directory (not created here)."""
    override = os.environ.get(CONFIG_DIR_VARIABLE)
    if override:
        return Path(os.path.abspath(os.path.expanduser(override)))
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def user_config_file() -> Path:
    return user_config_dir() / USER_CONFIG_FILE


def user_directories() -> list[Path]:
    """Directories that are the user's own, where a setting may point agentls's state:
    the home directory and the platform's config, data, state and cache directories."""
    import platformdirs

    dirs = [
        user_config_dir(),
        Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_state_dir(APP_NAME, appauthor=False)),
        Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        Path.home(),
    ]
    return [Path(os.path.realpath(d)) for d in dirs]


def is_within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or inside it, both taken as they resolve on disk."""
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(folder))
    return real == base or base in real.parents
