"""seek: exact before loose, nearest to the stated line, refusal when it cannot tell."""

from __future__ import annotations

import pytest

from agentls.agent.patch.seek import SeekFailure, seek

FILE = ["a", "b", "c", "x", "b", "c", "y"]


def test_stated_position_wins_when_it_matches() -> None:
    assert seek(FILE, ["b", "c"], 4, 0) == 4
    assert seek(FILE, ["b", "c"], 1, 0) == 1


def test_nearest_match_to_a_wrong_line_number() -> None:
    assert seek(FILE, ["b", "c"], 5, 0) == 4
    assert seek(FILE, ["b", "c"], 0, 0) == 1


def test_floor_excludes_earlier_matches() -> None:
    assert seek(FILE, ["b", "c"], 0, 2) == 4


def test_exact_beats_a_closer_whitespace_match() -> None:
    lines = ["b  ", "c", "b", "c"]
    assert seek(lines, ["b", "c"], 0, 0) == 2


@pytest.mark.parametrize(
    ("lines", "old"),
    [(["  if x:  ", "\treturn"], ["if x:", "    return"]), (["v = 1   "], ["v = 1"])],
)
def test_loose_levels(lines: list[str], old: list[str]) -> None:
    assert seek(lines, old, 0, 0) == 0


def test_equidistant_matches_are_ambiguous() -> None:
    with pytest.raises(SeekFailure, match="match in 2 places"):
        seek(["b", "c", "x", "y", "b", "c"], ["b", "c"], 2, 0)


def test_far_matches_of_similar_distance_are_ambiguous() -> None:
    lines = ["k"] + ["-"] * 50 + ["k"]
    with pytest.raises(SeekFailure, match="none of them is clearly"):
        seek(lines, ["k"], 300, 0)


def test_a_clearly_closer_far_match_is_taken() -> None:
    lines = ["k"] + ["-"] * 100 + ["k"] + ["-"] * 10
    assert seek(lines, ["k"], 120, 0) == 101


def test_missing_context_points_at_the_nearest_block() -> None:
    with pytest.raises(SeekFailure, match=r"line 5 is 'b' instead of 'B'"):
        seek(FILE, ["x", "B", "c"], 3, 0)


def test_context_only_before_floor_is_an_ordering_error() -> None:
    with pytest.raises(SeekFailure, match="must be in file order"):
        seek(FILE, ["a"], 0, 3)


def test_pure_insertion_uses_the_stated_line() -> None:
    assert seek(FILE, [], 7, 0) == 7
    with pytest.raises(SeekFailure, match="file has 7 lines"):
        seek(FILE, [], 9, 0)
