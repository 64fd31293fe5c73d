"""YAML front matter: the ``---`` block at the top of a prompt or instruction file."""

from __future__ import annotations

from typing import Any


class FrontMatterError(ValueError):
    """The front matter is not valid YAML or not a mapping; the message names the line."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body). A file without a leading ``---`` line has none."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            head = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            break
    else:
        raise FrontMatterError("its front matter starts with --- on line 1 but never ends")
    import yaml  # here: most files have no front matter (~20 ms to import)

    try:
        data = yaml.safe_load(head)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" on line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise FrontMatterError(f"its front matter is not valid YAML{where}: {problem}") from None
    if data is None:
        return {}, body
    if not isinstance(data, dict):
        raise FrontMatterError("its front matter must be a mapping of keys (line 2)")
    return {str(key): value for key, value in data.items()}, body
