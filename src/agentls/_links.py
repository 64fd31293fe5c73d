"""The links of ``src/agentls/`` to the top-level folders, checked before anything needs them.

In the repository ``agentls.agent``, ``agentls.server``, ``agentls.indexer``,
``agentls.acp_agent``, ``agentls.cli`` and ``agentls.langservers`` are symbolic links to
the folders ``agent/``, ``server/``, ``indexer/``, ``acp_agent/``, ``cli/`` and
``langservers/``. A checkout made without symbolic links (git's ``core.symlinks`` false, the
default on Windows unless Developer Mode is on) writes each link as a small text file holding
the target's path. Python then finds no such package and setuptools builds a wheel without
them, neither saying why. ``setup.py`` (at build time) and ``agentls/__init__.py`` (at import
time) ask ``problem`` and stop with its text.

Only the standard library: ``setup.py`` loads this file by its path, before anything of
agentls is installed.
"""

from __future__ import annotations

import os

#: The subpackages that are links in the repository (and folders in a wheel or an sdist).
LINKED = ("agent", "server", "indexer", "acp_agent", "cli", "langservers")

_WHAT_TO_DO = """\
This happens when git checks out without symbolic links (core.symlinks false: the default on
Windows unless Developer Mode is on). To fix this copy, on Windows:
  1. turn on Developer Mode (Settings > System > For developers), or run git as
     administrator, so that git may create symbolic links;
  2. git config core.symlinks true
  3. git checkout -- src/agentls
     (git writes the links again; a fresh clone made after step 1 with
     `git clone -c core.symlinks=true ...` works as well)
or clone and work inside WSL. CONTRIBUTING.md has the whole set-up. An installed agentls
that lacks these packages was built from such a copy: install it again from a fixed one."""


def _holding(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read(200).strip()
    except OSError:
        return ""


def problem(package_dir: str) -> str | None:
    """What is wrong with the subpackages of the ``agentls`` folder ``package_dir``, and what
    to do about it; None when each is a folder (a working link, or a copy in an install).

    Only a folder on disk is judged: elsewhere (a zip) there is nothing to look at.
    """
    if not os.path.isdir(package_dir):
        return None
    wrong = []
    for name in LINKED:
        path = os.path.join(package_dir, name)
        if os.path.isdir(path):
            continue
        if os.path.isfile(path):
            held = _holding(path)
            wrong.append(
                f"  agentls/{name} is a plain file (holding {held!r}) where the repository has a "
                f"symbolic link to the folder {name}/"
            )
        else:
            wrong.append(f"  agentls/{name} is missing: the package agentls.{name} is not there")
    if not wrong:
        return None
    return "\n".join(
        [
            f"agentls cannot be built or imported from {package_dir}:",
            *wrong,
            _WHAT_TO_DO,
        ]
    )
