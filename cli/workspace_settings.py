"""The ``--workspace`` and ``--config`` options of the commands that read a folder's
settings outside a run (``sessions``, ``checkpoints``, ``restore``), and those settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig


def add_settings_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workspace", type=Path, help="workspace root (default: current dir)")
    parser.add_argument("--config", type=Path, help="config file (default: .agentls.yaml)")


def settings_of(args: argparse.Namespace) -> AppConfig | None:
    """The folder's settings; None when they cannot be read (the reason is printed)."""
    from agentls.agent.errors import AgentError
    from agentls.agent.folder.settings import FolderSettings

    try:
        return FolderSettings(args.workspace, config_file=args.config).load().config
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return None
