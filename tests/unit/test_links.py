"""``agentls._links.problem``: what it finds wrong with the folder of the ``agentls`` package."""

from __future__ import annotations

import zipfile
from pathlib import Path

import agentls
from agentls._links import LINKED, problem


def package_with(tmp_path: Path, folders: tuple[str, ...], files: tuple[str, ...] = ()) -> Path:
    package = tmp_path / "agentls"
    package.mkdir()
    for name in folders:
        (package / name).mkdir()
    for name in files:
        (package / name).write_text(f"../../{name}")
    return package


def test_this_agentls_has_every_layer_as_a_folder() -> None:
    assert problem(str(Path(agentls.__file__).parent)) is None


def test_folders_are_fine_whether_links_or_copies(tmp_path: Path) -> None:
    package = package_with(tmp_path, LINKED[1:])
    target = tmp_path / "agent"
    target.mkdir()
    (package / LINKED[0]).symlink_to(target)
    assert problem(str(package)) is None


def test_a_plain_file_is_named_with_what_it_holds_and_what_to_do(tmp_path: Path) -> None:
    package = package_with(tmp_path, ("agent", "indexer", "acp_agent", "cli"), files=("server",))
    found = problem(str(package))
    assert found is not None
    assert found.startswith(f"agentls cannot be built or imported from {package}:\n")
    assert "agentls/server is a plain file (holding '../../server')" in found
    assert "agentls/agent" not in found and "agentls/indexer" not in found
    assert "git config core.symlinks true" in found


def test_a_missing_layer_is_named_too(tmp_path: Path) -> None:
    """An install built from such a checkout before setup.py checked: the folder is absent."""
    package = package_with(tmp_path, ("agent", "server", "indexer", "cli"))
    found = problem(str(package))
    assert found is not None
    assert "agentls/acp_agent is missing: the package agentls.acp_agent is not there" in found
    assert "install it again from a fixed one" in found


def test_a_package_that_is_not_a_folder_on_disk_is_not_judged(tmp_path: Path) -> None:
    archive = tmp_path / "agentls.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("agentls/__init__.py", "")
    assert problem(str(archive / "agentls")) is None
