"""What the user attaches to a prompt: a file (or some of its lines), a symbol's
definition, the current problems (of every file, or of one), the uncommitted changes, an
image.

Each attachment is read before the run starts, so a bad one (a missing or binary file, a
symbol nobody defines, an image too large, of an unknown type, or for a model that cannot
see images) fails the run at once with a message naming it, before any model call. Text
attachments join the prompt under a heading that names them; images go with the first
user message as image parts. A file larger than the budget is given as its outline (its
definitions with their lines) and a note saying how to attach a range instead.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from agentls.agent.contract import Attachment
from agentls.agent.errors import AgentError
from agentls.agent.problems import REPORTED, ProblemSource
from agentls.agent.workspace import FileAccess

#: Bytes of text attachments a prompt may carry, all together.
TEXT_BUDGET = 48_000
#: Bytes of one image (decoded).
MAX_IMAGE_BYTES = 5 * 1024 * 1024
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Seconds an attached symbol waits for the index's symbols to be parsed.
SYMBOLS_FILL_WAIT = 30.0
#: Problems an attachment of the current problems lists; the rest are counted.
MAX_PROBLEMS = 200


class AttachmentError(AgentError):
    """An attachment that cannot be given to the model; the message names it."""


@dataclass
class Attached:
    """The attachments, ready for the model."""

    blocks: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    #: How each attachment is named to the user (``src/app.py:10-20``, ``image 1``).
    labels: list[str] = field(default_factory=list)
    #: What the user should hear while reading them (a language server missing or crashed).
    notices: list[str] = field(default_factory=list)

    def prompt_with(self, prompt: str) -> str:
        if not self.blocks:
            return prompt
        return prompt + "\n\n" + "\n\n".join(self.blocks)


async def attach(
    attachments: Sequence[Attachment],
    files: FileAccess,
    *,
    symbols: Any = None,
    problems: ProblemSource | None = None,
    problems_wait: float = 0.0,
    sees_images: bool,
    budget: int = TEXT_BUDGET,
) -> Attached:
    """Every attachment read; AttachmentError at the first that cannot be. ``problems``
    is who knows the files' problems (None: nobody); ``problems_wait`` how long a file it
    has not checked yet may be waited for."""
    out = Attached()
    left = budget
    for attachment in attachments:
        if attachment.kind == "image":
            out.images.append(_image(attachment, sees_images, len(out.images) + 1))
            out.labels.append(f"image {len(out.images)}")
            continue
        if attachment.kind == "problems":
            label, block, notices = await _problems(
                attachment, files, problems, problems_wait, left
            )
            out.notices += notices
        else:
            label, block = await _text(attachment, files, symbols, left)
        left -= len(block.encode("utf-8"))
        out.blocks.append(block)
        out.labels.append(label)
    return out


async def _text(
    attachment: Attachment, files: FileAccess, symbols: Any, left: int
) -> tuple[str, str]:
    if attachment.kind == "file":
        return await _file(attachment, files, left)
    if attachment.kind == "symbol":
        return await _symbol(attachment, files, symbols)
    if attachment.kind == "changes":
        from agentls.agent.prompts.git_changes import NoChangesError, uncommitted_changes

        try:
            changes = await uncommitted_changes(files.root)
        except NoChangesError as exc:
            raise AttachmentError(f"the uncommitted changes: {exc}") from None
        return "the uncommitted changes", _fenced("The uncommitted changes", changes.render())
    raise AttachmentError(f"attachments of kind {attachment.kind!r} are not offered here")


async def _file(attachment: Attachment, files: FileAccess, left: int) -> tuple[str, str]:
    path = _relative(attachment.path or "", files.root)
    try:
        text = (await files.read_text(path)).text
    except AgentError as exc:
        raise AttachmentError(f"attached file {path}: {exc}") from None
    lines = text.splitlines()
    start, end = attachment.start_line, attachment.end_line
    if start is not None or end is not None:
        first, last = start or 1, end or len(lines)
        if first < 1 or last < first or first > len(lines):
            raise AttachmentError(
                f"attached file {path}: lines {first}-{last} are not in the file "
                f"({len(lines)} lines)"
            )
        label = f"{path}:{first}-{min(last, len(lines))}"
        body = "\n".join(lines[first - 1 : last])
        return label, _fenced(f"Attached: {label}", body)
    size = len(text.encode("utf-8"))
    if size <= left:
        return path, _fenced(f"Attached: {path}", text)
    outline = _outline(path, text)
    note = (
        f"(The file is {size // 1024} KB, more than the attachments may carry; this is its "
        "outline. Read the parts you need with read_file.)"
    )
    return f"{path} (outline)", _fenced(f"Attached: {path}, outline", f"{note}\n{outline}")


async def _problems(
    attachment: Attachment,
    files: FileAccess,
    source: ProblemSource | None,
    wait: float,
    left: int,
) -> tuple[str, str, list[str]]:
    """The errors and warnings known now: of the file ``attachment.path`` names (checked
    now if need be), else of every file the source knows (the editor's open documents;
    the files the language servers were given). None known is said, not refused: it is
    what the user asked to know. Also returned: what went wrong on the way (a server
    that did not answer in time), which the model is told as well, lest "none" be
    taken for "clean"."""
    path = _relative(attachment.path, files.root) if attachment.path else None
    what = f"the problems of {path}" if path else "the current problems"
    if source is None:
        raise AttachmentError(
            f"{what}: nothing reports problems to this run (no editor answers "
            "agent/diagnostics and no language server is started: diagnostics.enabled is "
            "false)"
        )
    texts: dict[str, str] | None = None
    if path is not None:
        try:
            path = files.rel(path)
        except AgentError as exc:
            raise AttachmentError(f"{what}: {exc}") from None
        # Asked before the file is read: reading it tells the source too, and the reason
        # nothing checks it (not installed, an untrusted folder) belongs in this message.
        if not source.covers(path):
            raise AttachmentError(_unchecked(what, source))
        try:
            texts = {path: (await files.read_text(path)).text}
        except AgentError as exc:
            raise AttachmentError(f"{what}: {exc}") from None
    found = await source.problems(texts, wait)
    if path is not None and path in found.unchecked:
        raise AttachmentError(_unchecked(what, source))
    notices = source.take_notices()
    caveats = "".join(f"\nBut: {notice}" for notice in notices)
    listed = sorted(
        (p for p in found.problems if p.severity in REPORTED),
        key=lambda p: (p.rank, p.path, p.line, p.col),
    )
    heading = f"The problems of {path}" if path else "The current problems"
    if not listed:
        where = path or "any file whose problems are known"
        # "None" is only a fact when every source answered; else it is what arrived.
        body = (
            f"No errors or warnings were reported for {where} in time."
            if notices
            else f"No errors or warnings in {where}."
        )
        if path is None:
            body += (
                " Only the files open in the editor, or given to a language server in this "
                "run, are checked: attach a file's problems by its path to have it checked."
            )
        return f"{what} (none)", _fenced(heading, body + caveats), notices
    lines: list[str] = []
    used = 0
    for problem in listed[:MAX_PROBLEMS]:
        line = problem.render()
        used += len(line.encode("utf-8")) + 1
        if used > left:
            break
        lines.append(line)
    if len(lines) < len(listed):
        lines.append(f"[{len(listed) - len(lines)} more not listed]")
    errors = sum(1 for p in listed if p.severity == "error")
    counts = f"{_count(errors, 'error')}, {_count(len(listed) - errors, 'warning')}"
    body = "\n".join(lines) + caveats
    return f"{what} ({counts})", _fenced(f"{heading} ({counts})", body), notices


def _unchecked(what: str, source: ProblemSource) -> str:
    """Why nothing can tell a file's problems: no server for its kind, or the reason the
    source gave (not installed, an untrusted folder)."""
    why = "; ".join(source.take_notices())
    return f"{what}: no language server checks this kind of file" + (f" ({why})" if why else "")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _relative(path: str, root: Path | str) -> str:
    """An absolute path inside the workspace as the file access takes it (relative);
    any other stays as given, for the file access to refuse by name."""
    if not os.path.isabs(path):
        return path
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real == real_root or not real.startswith(real_root + os.sep):
        return path
    return os.path.relpath(real, real_root)


def _outline(path: str, text: str) -> str:
    """The file's definitions, one per line with its line number; the first lines when
    the language is not one the indexer parses."""
    from agentls.indexer.languages import language_of, split_ext
    from agentls.indexer.symbols import extract, grammar_name

    name = PurePosixPath(path).name
    ext = split_ext(name)
    grammar = grammar_name(language_of(name, ext), ext)
    if grammar is not None:
        definitions = extract(text.encode("utf-8"), grammar).definitions
        if definitions:
            return "\n".join(f"{d.line}: {d.signature}" for d in definitions[:400])
    return "\n".join(text.splitlines()[:80])


async def _symbol(attachment: Attachment, files: FileAccess, symbols: Any) -> tuple[str, str]:
    from agentls.indexer.symbol_source import SymbolsUnavailable

    name = attachment.name or ""
    filled = True
    try:
        if symbols is not None:
            # A run starts while the symbols of a fresh index are still being parsed: a
            # name defined in a file not parsed yet would be reported as not defined.
            filled = await symbols.wait_filled(SYMBOLS_FILL_WAIT)
        hits = await symbols.find_definitions(name) if symbols is not None else []
    except SymbolsUnavailable as exc:
        raise AttachmentError(f"attached symbol {name!r}: {exc}") from None
    if not hits:
        still = "" if filled else " (the index is still being built: try again in a moment)"
        raise AttachmentError(f"attached symbol {name!r}: no definition of it in the index{still}")
    blocks = []
    for hit in hits[:3]:
        text = (await files.read_text(hit.path)).text.splitlines()
        start = max(hit.line - 1, 0)
        body = "\n".join(text[start : start + 60])
        blocks.append(f"{hit.path}:{hit.line}\n{body}")
    return f"symbol {name}", _fenced(f"Attached: the definition of {name}", "\n\n".join(blocks))


def _image(attachment: Attachment, sees_images: bool, number: int) -> dict[str, Any]:
    what = attachment.path or f"image {number}"
    if not sees_images:
        raise AttachmentError(
            f"{what}: the model cannot take images (choose a model that does, or set "
            "llm.vision: true if it can)"
        )
    mime = attachment.mime_type or ""
    if mime not in IMAGE_TYPES:
        raise AttachmentError(
            f"{what}: images of type {mime or 'unknown'} are not taken; use one of "
            + ", ".join(sorted(IMAGE_TYPES))
        )
    try:
        data = base64.b64decode(attachment.data or "", validate=True)
    except (binascii.Error, ValueError):
        raise AttachmentError(f"{what}: the image data is not base64") from None
    if not data:
        raise AttachmentError(f"{what}: the image is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise AttachmentError(
            f"{what}: the image is {len(data) // 1024} KB, more than "
            f"{MAX_IMAGE_BYTES // 1024 // 1024} MB"
        )
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{attachment.data}"}}


def _fenced(heading: str, body: str) -> str:
    fence = "````" if "```" in body else "```"
    return f"## {heading}\n{fence}\n{body.rstrip()}\n{fence}"


def sees_images(model: str, override: bool | None) -> bool:
    """Whether ``model`` takes images: the config's word, else litellm's model list, read
    from its file (the language server never imports litellm: ~190 MB for one flag)."""
    if override is not None:
        return override
    from agentls.agent.llm import cost_map

    try:
        found = cost_map.model_entry(model)
    except Exception:  # an unreadable list: no images, as for a model it does not know
        return False
    return bool(found and found[1].get("supports_vision"))
