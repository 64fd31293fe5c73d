"""parse_patch: the data it produces and the line numbers in its errors."""

from __future__ import annotations

import re

import pytest

from agentls.agent.errors import PatchError
from agentls.agent.patch import FilePatch, HunkLine, PatchHunk, parse_patch
from agentls.agent.patch.paths import parse_git_names, parse_header_path, unquote

GIT = """\
diff --git a/src/app.py b/src/app.py
index 3b18e51..a9c8f1e 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,3 @@ def main():
 a
-b
+B
 c
@@ -10 +10,2 @@
 x
+y
\\ No newline at end of file
"""


def test_git_patch_structure() -> None:
    [fp] = parse_patch(GIT)
    assert (fp.old_path, fp.new_path, fp.path) == ("a/src/app.py", "b/src/app.py", "src/app.py")
    assert not fp.is_new and not fp.is_delete and not fp.is_rename
    first, second = fp.hunks
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (1, 3, 1, 3)
    assert first.lines == [
        HunkLine(" ", "a"),
        HunkLine("-", "b"),
        HunkLine("+", "B"),
        HunkLine(" ", "c"),
    ]
    assert first.title() == "@@ -1,3 +1,3 @@"
    assert (second.old_count, second.new_count) == (1, 2)
    assert second.lines[-1] == HunkLine("+", "y", no_newline=True)
    assert second.new_no_newline and not second.old_no_newline
    assert second.old_lines == ["x"] and second.new_lines == ["x", "y"]


def test_dev_null_sides() -> None:
    created, deleted = parse_patch(
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n"
    )
    assert created.is_new and created.old_path is None and created.path == "new.txt"
    assert deleted.is_delete and deleted.new_path is None and deleted.path == "old.txt"


def test_empty_new_file_without_hunks() -> None:
    [fp] = parse_patch("diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n")
    assert fp.is_new and fp.hunks == [] and fp.path == "e"


def test_rename_reads_old_writes_new() -> None:
    [fp] = parse_patch(
        "diff --git a/x.py b/y.py\nsimilarity index 100%\nrename from x.py\nrename to y.py\n"
    )
    assert fp.is_rename and (fp.source, fp.path) == ("x.py", "y.py")


def test_same_name_on_both_sides_keeps_b_directory() -> None:
    [fp] = parse_patch("--- b/x\n+++ b/x\n@@ -1 +1 @@\n-1\n+2\n")
    assert fp.path == "b/x"


def test_crlf_patch_lines_are_stripped_and_remembered() -> None:
    [fp] = parse_patch("--- /dev/null\r\n+++ b/c\r\n@@ -0,0 +1,2 @@\r\n+one\r\n+two\r\n")
    assert fp.crlf and fp.hunks[0].new_lines == ["one", "two"]


@pytest.mark.parametrize(
    ("rest", "expected"),
    [
        ("a/x.py\t2024-05-01 12:00:00.000000000 +0200", "a/x.py"),
        ("a/x.py 2024-05-01 12:00:00 +0200", "a/x.py"),
        ("a/my file.py", "a/my file.py"),
        ("/dev/null", None),
        ("a/new.py\t1970-01-01 00:00:00.000000000 +0000", None),
        ('"a/caf\\303\\251.txt"\t', "a/café.txt"),
    ],
)
def test_header_paths(rest: str, expected: str | None) -> None:
    assert parse_header_path(rest) == expected


def test_git_names_with_spaces_and_quotes() -> None:
    assert parse_git_names("a/my dir/f b.txt b/my dir/f b.txt") == (
        "a/my dir/f b.txt",
        "b/my dir/f b.txt",
    )
    assert parse_git_names('"a/t\\tab" "b/t\\tab"') == ("a/t\tab", "b/t\tab")
    with pytest.raises(ValueError, match="unterminated"):
        unquote('"a/x')


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("hello\n", "no file patch found"),
        ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n", "line 4: hunk 1 of x (@@ -1,2 +1,2 @@)"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n", "line 6: hunk 1 of x"),
        ("--- a/x\n+++ b/x\n@@ -0,0 +0,0 @@\n", "line 3: hunk 1 of x (@@ -0,0 +0,0 @@) is empty"),
        ("--- a/x\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n", "has new lines but the file is deleted"),
        ("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n", "both sides"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n\\ No newline at end of file\n", "before any line"),
        ('--- "a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n', "line 1: unterminated"),
    ],
)
def test_malformed(patch: str, message: str) -> None:
    with pytest.raises(PatchError, match=re.escape(message)):
        parse_patch(patch)


def test_prose_dashes_before_the_patch_are_junk() -> None:
    [fp] = parse_patch("--- see below\nwords\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
    assert fp.line_no == 3


def test_format_patch_signature_is_not_a_body_line() -> None:
    [fp] = parse_patch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n")
    assert len(fp.hunks[0].lines) == 2


def test_dataclasses_are_constructible_by_hand() -> None:
    hunk = PatchHunk(3, 1, 3, 1, [HunkLine("-", "a"), HunkLine("+", "b")])
    fp = FilePatch("a/f", "b/f", [hunk])
    assert hunk.title() == "@@ -3,1 +3,1 @@" and fp.path == "f"
