"""One way to cut text down: at most ``limit`` characters, ``…`` where it was cut."""

from __future__ import annotations

from agentls.agent.text import one_line, shorten, shorten_args


def test_shorten_keeps_what_fits_and_marks_the_cut() -> None:
    assert shorten("abcde", 5) == "abcde"
    assert shorten("abcdefghijk", 5) == "abcd…"
    assert len(shorten("x" * 500, 60)) == 60
    assert shorten("abcdefghijk", 8, marker="\n…") == "abcdef\n…"


def test_one_line_folds_white_space_before_cutting() -> None:
    assert one_line("fix\n  the   bug\tnow", 40) == "fix the bug now"
    assert one_line("a\nb c d e f", 5) == "a b …"


def test_shorten_args_cuts_strings_only() -> None:
    assert shorten_args({"path": "p" * 10, "n": 3, "flag": True}, 4) == {
        "path": "ppp…",
        "n": 3,
        "flag": True,
    }
