"""Fuzzy matching for pickers: what matches, and in which order (its speed over 50,000 paths:
bench/fuzzy_paths.py)."""

from __future__ import annotations

from agentls.indexer.fuzzy import best, file_name_start, score


def paths(query: str, candidates: list[str], limit: int = 10) -> list[str]:
    return best(query, candidates, lambda p: p, limit, tail_from=file_name_start)


def test_the_characters_must_appear_in_order_whatever_their_case() -> None:
    assert score("gr", "src/Greeting.py") is not None
    assert score("sgp", "src/greeting.py") is not None
    assert score("pgs", "src/greeting.py") is None


def test_a_whole_match_in_the_file_name_beats_one_in_a_folder_or_a_spread_one() -> None:
    found = paths(
        "app", ["application/setup.py", "src/app.py", "src/a/p/p.py", "tests/test_app.py"]
    )
    assert found[:2] == ["src/app.py", "tests/test_app.py"]
    assert found[-1] == "src/a/p/p.py"


def test_word_starts_count_in_a_spread_match() -> None:
    found = best("gt", ["getattr", "greet_total", "eight"], lambda n: n, 3)
    assert found[0] == "greet_total"


def test_an_empty_query_lists_the_first_in_order_and_the_limit_holds() -> None:
    assert paths("", ["b", "a", "c"], 2) == ["b", "a"]
    assert len(paths("a", [f"a{n}.py" for n in range(100)], 7)) == 7


def test_among_fifty_thousand_paths_the_whole_file_name_comes_first() -> None:
    many = [f"pkg{n // 500}/module_{n}/file_{n}.py" for n in range(50_000)]
    found = paths("file_4999", many, 20)
    assert found[0] == "pkg9/module_4999/file_4999.py"
    assert len(found) == 20
