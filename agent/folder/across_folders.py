"""A run works in one workspace folder; what the user hands it from another folder.

In a multi-root workspace every run works in one folder, its tools confined to it. A file
of another folder named by the run's request (its active file, an attachment) is refused
with the reason and the one setting that allows it: ``workspace.read_across_folders`` in
the user's own config (never a workspace's file: a repository must not widen what a run
in another repository reads). Allowed, an attached file of another folder is read-only
context: ``ReadsElsewhere`` lets the run read those files, and only those, through that
folder's own file access; nothing of that folder is ever written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentls.agent.contract import Attachment
from agentls.agent.workspace import FileAccess, TextFile, WrappedFiles

#: The user config's key that allows a run to read the files of another folder.
READ_ACROSS_KEY = "workspace.read_across_folders"


@dataclass(frozen=True)
class FileElsewhere:
    """A file a request names that lies in another workspace folder."""

    #: How the refusal names it: "the attached file", "the active file".
    what: str
    #: Its absolute path.
    path: Path
    #: The root of the folder that holds it.
    folder: Path

    def refusal(self, run_folder: Path) -> str:
        """Why the run does not take it, and how to allow it."""
        return (
            f"{self.what} {self.path} is in folder {_name(self.folder)} ({self.folder}), the "
            f"run works in folder {_name(run_folder)} ({run_folder}); set "
            f"`{READ_ACROSS_KEY}: true` in your user config to allow it"
        )


def files_elsewhere(
    root: Path,
    active_file: str | None,
    attachments: Sequence[Attachment],
    holder: Callable[[Path], Path | None],
) -> list[FileElsewhere]:
    """The files among ``active_file`` and ``attachments`` that lie in another workspace
    folder than ``root`` (``holder`` names the folder holding an absolute path, None: in
    none). Relative paths are the run's folder's; paths in no folder are the file
    access's to refuse, as in a single-folder workspace."""
    named: list[tuple[str, str]] = []
    if active_file:
        named.append(("the active file", active_file))
    # An image's path is only a name to show (its bytes come with it).
    named += [
        (f"the attached {a.kind}", a.path)
        for a in attachments
        if a.path and a.kind in ("file", "problems")
    ]
    found: list[FileElsewhere] = []
    for what, name in named:
        if not os.path.isabs(name):
            continue
        path = Path(os.path.abspath(name))
        folder = holder(path)
        if folder is not None and not _same(folder, root):
            found.append(FileElsewhere(what, path, folder))
    return found


class ReadsElsewhere(WrappedFiles):
    """The run's file access, plus the files of other folders the user attached: those
    (by absolute path) are read through their own folder's access, read-only. Every other
    path, and every write, is the run's folder's."""

    def __init__(self, inner: FileAccess, elsewhere: Mapping[Path, FileAccess]) -> None:
        super().__init__(inner)
        self._elsewhere = {os.path.realpath(path): files for path, files in elsewhere.items()}

    def _other(self, path: str) -> tuple[FileAccess, str] | None:
        if not os.path.isabs(path):
            return None
        real = os.path.realpath(path)
        files = self._elsewhere.get(real)
        return (files, os.path.relpath(real, files.root)) if files is not None else None

    async def read_text(self, path: str) -> TextFile:
        other = self._other(path)
        if other is None:
            return await self.inner.read_text(path)
        files, rel = other
        return await files.read_text(rel)

    async def exists(self, path: str) -> bool:
        other = self._other(path)
        if other is None:
            return await self.inner.exists(path)
        files, rel = other
        return await files.exists(rel)


def _name(folder: Path) -> str:
    return folder.name or str(folder)


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
