"""What ``load_skill`` gives the model: a skill's body with its folder and files, or the
text of one of its files, never a file outside the skill's folder.

Paths are relative to the skill's folder. A file is read only when it resolves (symlinks
followed) inside that folder: a link leading out of it is refused and named, and it is
not listed. Hidden entries (``.git``...) are not listed.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from agentls.agent.prompts.skills.discovery import SKILL_FILE, Skill, SkillError
from agentls.regular_files import NotRegularFileError, read_regular

#: At most this many files are listed.
MAX_LISTED = 200
#: At most this much of a file is given (bytes).
MAX_FILE_BYTES = 256 * 1024


def skill_files(skill: Skill) -> tuple[list[str], int]:
    """The skill's files (relative POSIX paths, sorted; SKILL.md left out), at most
    ``MAX_LISTED``, and how many more there are."""
    folder = skill.folder
    found: list[str] = []
    for current, dirs, files in os.walk(folder):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and _inside(here / d, folder))
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or not _inside(path, folder):
                continue
            relative = path.relative_to(folder).as_posix()
            if relative != SKILL_FILE:
                found.append(relative)
    found.sort()
    return found[:MAX_LISTED], max(0, len(found) - MAX_LISTED)


def _inside(path: Path, folder: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == folder or folder in real.parents


def loaded_skill(skill: Skill) -> str:
    """What the model reads when it loads ``skill``."""
    files, more = skill_files(skill)
    listed = "\n".join(f"- {f}" for f in files) or "(none)"
    if more:
        listed += f"\n- ... and {more} more"
    return (
        f"# Skill {skill.name} ({skill.label})\n"
        f"Folder: {skill.folder}\n"
        "Run its scripts with execute_command from that folder (or by their full path); "
        f'read one of its files with load_skill(name="{skill.name}", file="<path>").\n'
        f"Files:\n{listed}\n\n"
        f"{skill.body}"
    )


def skill_file_text(skill: Skill, file: str) -> str:
    """The text of the skill's ``file`` (relative to its folder); SkillError when it is
    outside the folder, missing, not a file, or not text."""
    relative = PurePosixPath(file.replace("\\", "/"))
    if relative.is_absolute() or not file.strip():
        raise SkillError(
            f"{file!r}: give a path relative to the skill's folder, as load_skill lists them"
        )
    path = skill.folder / relative
    real = Path(os.path.realpath(path))
    if not (real == skill.folder or skill.folder in real.parents):
        raise SkillError(
            f"{file!r} of the skill {skill.name} leads out of the skill's folder "
            f"(it resolves to {real}): refused"
        )
    try:
        data = read_regular(real, MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise SkillError(
            f'the skill {skill.name} has no file {file!r}; load_skill(name="{skill.name}") '
            "lists its files"
        ) from None
    except (NotRegularFileError, IsADirectoryError) as exc:
        raise SkillError(
            f"{file!r} of the skill {skill.name} is not a regular file: {exc}"
        ) from None
    except OSError as exc:
        raise SkillError(f"{file!r} of the skill {skill.name} cannot be read: {exc}") from None
    if b"\x00" in data[:8192]:
        raise SkillError(
            f"{file!r} of the skill {skill.name} is a binary file: use it from a command "
            f"(its path is {real})"
        )
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_FILE_BYTES:
        text += f"\n[... cut at {MAX_FILE_BYTES} bytes; the whole file is {real}]"
    return text
