"""Telling the user, where they look, that commands cannot be sandboxed here.

Without bubblewrap, with one that cannot start (``sandbox.bwrap_status`` probes it once;
the notice then names the cause and the fix), or on macOS and Windows, where agentls has
no sandbox, the commands the agent runs are not confined: they can write anywhere the
user can and reach the network. A note in a tool result is not enough, the user must
see it before approving anything: each front end shows ``missing_sandbox_notice`` where
its user looks (the CLI's first line, a VS Code warning, the ACP session), and allow
rules stop skipping the question while it holds.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentls.agent.config.models import AppConfig
from agentls.agent.exec.sandbox import bwrap_status

_INSTALL = {
    "debian": "sudo apt install bubblewrap",
    "ubuntu": "sudo apt install bubblewrap",
    "fedora": "sudo dnf install bubblewrap",
    "rhel": "sudo dnf install bubblewrap",
    "arch": "sudo pacman -S bubblewrap",
    "opensuse": "sudo zypper install bubblewrap",
    "alpine": "sudo apk add bubblewrap",
}


def install_command(os_release: Path = Path("/etc/os-release")) -> str:
    """How to install bubblewrap on this Linux distribution (by /etc/os-release)."""
    ids: list[str] = []
    try:
        for line in os_release.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key in ("ID", "ID_LIKE"):
                ids += value.strip().strip('"').lower().split()
    except OSError:
        pass
    for distro in ids:
        for known, command in _INSTALL.items():
            if distro.startswith(known):
                return command
    return "install the bubblewrap package (it provides `bwrap`)"


def missing_sandbox_notice(config: AppConfig, platform: str = sys.platform) -> str | None:
    """A warning when the default agent asks for a sandbox that cannot be had, else None."""
    from agentls.agent.config.agents import AgentRegistry

    if AgentRegistry(config).get("build").sandbox == "off":
        return None
    if platform.startswith("linux"):
        status = bwrap_status()
        if status.usable:
            return None
        until = (
            "Until then commands run with your full permissions, and allow rules no longer "
            "spare you the question."
        )
        if status.path is not None:
            return f"commands cannot be sandboxed: {status.describe()}. {until}"
        return (
            "commands cannot be sandboxed: bubblewrap is not installed. Install it with "
            f"`{install_command()}`. {until}"
        )
    system = (
        "macOS" if platform == "darwin" else "Windows" if platform.startswith("win") else platform
    )
    return (
        f"commands cannot be sandboxed on {system}: they run with your full permissions, "
        "and allow rules do not spare you the question."
    )
