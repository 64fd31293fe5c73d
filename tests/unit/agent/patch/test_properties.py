"""Round trips: whatever ``diff -u`` and ``difflib`` write, apply_patch turns back into the edit."""

from __future__ import annotations

import difflib
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agentls.agent.patch import apply_patch

# Lines that look like diff syntax once prefixed are the interesting ones for the parser.
_TRICKY = ["", " ", "\t", "x", "y", "x  ", "-- x", "++ y", "--- a", "+++ b", "@@ -1 +1 @@", "\\ z"]
line_text = st.one_of(
    st.sampled_from(_TRICKY),
    # NUL would make diff call the files binary; CR and LF would split the line.
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n\x00"), max_size=8),
)


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A file as a list of lines and the same file after random line edits."""
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


def _join(lines: list[str], eol: str, final_newline: bool) -> str:
    text = eol.join(lines)
    return text + eol if lines and final_newline else text


def _apply(patch: str, path: str, old: str) -> str | None:
    return apply_patch(patch, {path: old}.get)[path]


@pytest.mark.skipif(shutil.which("diff") is None, reason="needs the diff binary")
@settings(max_examples=150, deadline=None)
@given(
    edit=edits(),
    eol=st.sampled_from(["\n", "\r\n"]),
    old_final=st.booleans(),
    new_final=st.booleans(),
    context=st.integers(0, 4),
)
def test_gnu_diff_round_trip(
    edit: tuple[list[str], list[str]],
    eol: str,
    old_final: bool,
    new_final: bool,
    context: int,
) -> None:
    old = _join(edit[0], eol, old_final)
    new = _join(edit[1], eol, new_final)
    assume(old != new)
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "old").write_bytes(old.encode())
        (Path(directory) / "new").write_bytes(new.encode())
        run = subprocess.run(
            ["diff", f"-U{context}", "--label", "a/f.txt", "--label", "b/f.txt", "old", "new"],
            cwd=directory,
            capture_output=True,
            check=False,
        )
    assert run.returncode == 1, run.stderr
    assert _apply(run.stdout.decode(), "f.txt", old) == new


@settings(max_examples=150, deadline=None)
@given(edit=edits(), context=st.integers(0, 4))
def test_difflib_round_trip(edit: tuple[list[str], list[str]], context: int) -> None:
    # difflib writes no "\ No newline" marker, so only files with a final newline qualify.
    old = _join(edit[0], "\n", True)
    new = _join(edit[1], "\n", True)
    assume(old != new)
    patch = "".join(
        difflib.unified_diff(
            [line + "\n" for line in edit[0]],
            [line + "\n" for line in edit[1]],
            "a/f.txt",
            "b/f.txt",
            n=context,
        )
    )
    assert _apply(patch, "f.txt", old) == new
