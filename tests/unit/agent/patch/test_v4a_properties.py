"""Round trips: a V4A patch written from random before/after texts applies to exactly the after.

The patches are written the way a careful model would: changes with a few lines of
context, the context grown until the chunk's lines first occur where they belong (V4A has
no line numbers: a chunk is the first match after the previous one).
"""

from __future__ import annotations

import difflib

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agentls.agent.patch import apply_patch
from agentls.agent.patch.seek import matches

# Lines that look like V4A syntax once prefixed are the interesting ones for the parser.
_TRICKY = [
    "",
    " ",
    "x",
    "y",
    "x  ",
    "@@",
    "@@ x",
    "*** End of File",
    "*** End Patch",
    "*** Update File: f.txt",
    "** x",
    "+x",
    "-y",
]
line_text = st.one_of(
    st.sampled_from(_TRICKY),
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n\x00"), max_size=8),
)

Entry = tuple[str, str, int]  # (kind, text, index in the old file or -1 for an added line)


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    old = draw(st.lists(line_text, max_size=30))
    new = list(old)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        at = draw(st.integers(0, len(new)))
        if op == "insert" or not new:
            new[at:at] = draw(st.lists(line_text, min_size=1, max_size=3))
        elif op == "delete":
            del new[min(at, len(new) - 1)]
        else:
            new[min(at, len(new) - 1)] = draw(line_text)
    return old, new


def _diff(old: list[str], new: list[str]) -> list[Entry]:
    entries: list[Entry] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            entries += [(" ", old[i], i) for i in range(i1, i2)]
            continue
        entries += [("-", old[i], i) for i in range(i1, i2)]
        entries += [("+", new[j], -1) for j in range(j1, j2)]
    return entries


def _found_first(old: list[str], lines: list[str], start: int, floor: int) -> bool:
    found = [i for i in matches(old, lines, lambda line: line) if i >= floor]
    # The first chunk has nothing before it to narrow the search: it must be unique.
    return bool(found) and found[0] == start and (floor > 0 or len(found) == 1)


def v4a_patch(path: str, old: list[str], new: list[str], context: int) -> str:
    """A V4A patch turning ``old`` into ``new`` (lists of lines)."""
    entries = _diff(old, new)
    spans: list[tuple[int, int]] = []  # chunks, as slices of ``entries``
    for k, (kind, _, _) in enumerate(entries):
        if kind == " ":
            continue
        a, b = max(0, k - context), min(len(entries), k + context + 1)
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    i = 0
    while i < len(spans):
        a, b = spans[i]
        prev_end = spans[i - 1][1] if i else 0
        next_start = spans[i + 1][0] if i + 1 < len(spans) else len(entries)
        floor = sum(kind != "+" for kind, _, _ in entries[:prev_end])
        olds = [(text, index) for kind, text, index in entries[a:b] if kind != "+"]
        if (not olds and not old) or (
            olds and _found_first(old, [t for t, _ in olds], olds[0][1], floor)
        ):
            i += 1
        elif a > prev_end:
            spans[i] = (a - 1, b)  # one more line of context before
        elif b < next_start:
            spans[i] = (a, b + 1)  # ... or after
        elif i + 1 < len(spans):
            spans[i : i + 2] = [(a, spans[i + 1][1])]  # or one chunk with the next
        elif i > 0:
            spans[i - 1 : i + 1] = [(spans[i - 1][0], b)]
            i -= 1
        else:
            raise AssertionError("a chunk over the whole file is always unique")
    body: list[str] = []
    for a, b in spans:
        body.append("@@")
        body += [kind + text for kind, text, _ in entries[a:b]]
    return "\n".join(["*** Begin Patch", f"*** Update File: {path}", *body, "*** End Patch", ""])


def _join(lines: list[str], final_newline: bool) -> str:
    text = "\n".join(lines)
    return text + "\n" if lines and final_newline else text


@settings(max_examples=300, deadline=None)
@given(edit=edits(), context=st.integers(0, 3), final_newline=st.booleans())
def test_v4a_round_trip(
    edit: tuple[list[str], list[str]], context: int, final_newline: bool
) -> None:
    old_lines, new_lines = edit
    # V4A cannot say "no newline at end of file": the file keeps what it had. (Without a
    # final newline, a last empty line would not be a line of the text at all.)
    final = final_newline or not old_lines or not new_lines or "" in (old_lines[-1], new_lines[-1])
    old, new = _join(old_lines, final), _join(new_lines, final)
    assume(old != new and old_lines)
    patch = v4a_patch("f.txt", old_lines, new_lines, context)
    assert apply_patch(patch, {"f.txt": old}.get)["f.txt"] == new, patch


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(line_text, max_size=20), crlf=st.booleans())
def test_v4a_add_file_round_trip(lines: list[str], crlf: bool) -> None:
    eol = "\r\n" if crlf else "\n"
    patch = eol.join(["*** Begin Patch", "*** Add File: new.txt", *("+" + x for x in lines)])
    patch += eol + "*** End Patch" + eol
    assert apply_patch(patch, {}.get) == {"new.txt": "".join(x + eol for x in lines)}
