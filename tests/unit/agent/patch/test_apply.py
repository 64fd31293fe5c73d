"""apply_file_patch and apply_patch: line endings, final newlines, all-or-nothing, messages."""

from __future__ import annotations

import pytest

from agentls.agent.errors import PatchError
from agentls.agent.patch import apply_file_patch, apply_patch, parse_patch

APP = "".join(f"line {n}\n" for n in range(1, 31))


def _one(patch: str, old: str | None) -> str | None:
    [fp] = parse_patch(patch)
    return apply_file_patch(old, fp)


def test_error_names_file_hunk_and_expected_lines() -> None:
    patch = (
        "--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -2,1 +2,1 @@\n-line 2\n+LINE 2\n"
        "@@ -10,4 +10,5 @@\n line 10\n-nope\n+yes\n+more\n line 12\n line 13\n"
    )
    with pytest.raises(PatchError) as caught:
        apply_patch(patch, {"src/app.py": APP}.get)
    message = str(caught.value)
    assert message.startswith("hunk 2 of src/app.py (@@ -10,4 +10,5 @@) does not apply")
    assert "    nope\n" in message and "line 11 is 'line 11' instead of 'nope'" in message


def test_offset_of_one_hunk_carries_to_the_next() -> None:
    patch = "--- a/f\n+++ b/f\n@@ -12 +12 @@\n-line 2\n+two\n@@ -23 +23 @@\n-line 13\n+t\n"
    result = _one(patch, APP)
    assert result is not None and "two\n" in result and "\nt\nline 14" in result


def test_crlf_file_stays_crlf_with_lf_patch() -> None:
    assert _one("--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n", "a\r\nc\r\n") == "a\r\nb\r\nc\r\n"


def test_mixed_endings_keep_untouched_lines() -> None:
    old = "a\r\nb\nc\n"
    assert _one("--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n", old) == "a\r\nB\nc\n"


@pytest.mark.parametrize(
    ("old", "patch_body", "new"),
    [
        ("a\nb", " a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n"),
        ("a\nb\n", " a\n-b\n+b\n\\ No newline at end of file\n", "a\nb"),
        (
            "a\nb",
            " a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
            "a\nc",
        ),
        ("a\nb", " a\n-b\n+c\n", "a\nc"),
    ],
)
def test_final_newline(old: str, patch_body: str, new: str) -> None:
    assert _one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n" + patch_body, old) == new


def test_context_keeps_the_files_whitespace() -> None:
    old = "if x:   \n    go()\n"
    assert _one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n if x:\n-    go()\n+    stop()\n", old) == (
        "if x:   \n    stop()\n"
    )


def test_new_and_deleted_files() -> None:
    assert _one("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+n\n", None) == "n\n"
    assert _one("--- a/n\n+++ /dev/null\n@@ -1 +0,0 @@\n-n\n", "n\n") is None


def test_all_or_nothing_and_later_patches_see_earlier_ones() -> None:
    files = {"a": "1\n", "b": "2\n"}
    twice = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-1\n+one\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-one\n+uno\n"
    assert apply_patch(twice, files.get) == {"a": "uno\n"}
    failing = twice + "--- a/b\n+++ b/b\n@@ -1 +1 @@\n-3\n+three\n"
    with pytest.raises(PatchError, match="hunk 1 of b"):
        apply_patch(failing, files.get)
    assert files == {"a": "1\n", "b": "2\n"}


def test_rename_deletes_the_source() -> None:
    patch = "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n"
    assert apply_patch(patch, {"x": "data\n"}.get) == {"x": None, "y": "data\n"}


def test_deleting_a_non_empty_file_needs_its_lines() -> None:
    patch = "diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n"
    assert apply_patch(patch, {"e": ""}.get) == {"e": None}
    with pytest.raises(PatchError, match="removes only some of its lines"):
        apply_patch(patch, {"e": "content\n"}.get)
