"""A run's request may name files of other workspace folders: they are found (relative
paths are the run's folder's own), and when the user allows it, read through their
folder's own file access, read-only and only those."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.contract import Attachment
from agentls.agent.errors import AgentError
from agentls.agent.folder.across_folders import ReadsElsewhere, files_elsewhere
from agentls.agent.workspace import DiskFileAccess


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    api, web = tmp_path / "api", tmp_path / "web"
    for root, text in ((api, "API = 1\n"), (web, "WEB = 2\n")):
        (root / "src").mkdir(parents=True)
        (root / "src" / "main.py").write_text(text)
    (web / "other.py").write_text("NOT_ATTACHED = 3\n")
    return api, web


def test_the_files_of_another_folder_are_named_with_the_folder_that_holds_them(
    two: tuple[Path, Path],
) -> None:
    api, web = two

    def holder(path: Path) -> Path | None:
        return next((root for root in (api, web) if path.is_relative_to(root)), None)

    attachments = [
        Attachment(kind="file", path=str(web / "src" / "main.py")),
        Attachment(kind="file", path="src/main.py"),  # the run's folder's
        Attachment(kind="file", path=str(api / "src" / "main.py")),
        Attachment(kind="problems", path=str(web / "other.py")),
        Attachment(kind="changes"),
        # an image's path is a name to show: its bytes come with it
        Attachment(kind="image", path=str(web / "shot.png"), data="AA==", mime_type="image/png"),
    ]
    found = files_elsewhere(api, str(web / "other.py"), attachments, holder)
    assert [(f.what, f.path, f.folder) for f in found] == [
        ("the active file", web / "other.py", web),
        ("the attached file", web / "src" / "main.py", web),
        ("the attached problems", web / "other.py", web),
    ]
    reason = found[1].refusal(api)
    assert "is in folder web" in reason and "the run works in folder api" in reason
    assert "workspace.read_across_folders: true" in reason and "user config" in reason
    # a path in no folder is the file access's to refuse, as in one folder
    assert files_elsewhere(api, "/elsewhere/x.py", [], holder) == []


async def test_only_the_attached_files_of_another_folder_are_read_and_never_written(
    two: tuple[Path, Path],
) -> None:
    api, web = two
    attached = web / "src" / "main.py"
    files = ReadsElsewhere(DiskFileAccess(api), {attached: DiskFileAccess(web)})
    assert (await files.read_text(str(attached))).text == "WEB = 2\n"
    assert await files.exists(str(attached))
    assert (await files.read_text("src/main.py")).text == "API = 1\n"  # its own folder
    with pytest.raises(AgentError):
        await files.read_text(str(web / "other.py"))  # not attached: outside, as ever
    with pytest.raises(AgentError):
        await files.write_text(str(attached), "changed\n")
    assert attached.read_text() == "WEB = 2\n"
