"""Find where a hunk's old lines sit in a file whose line numbers may not match the header.

Models write hunks with stale line numbers and with whitespace that drifted from the file,
so the search tries three ever looser comparisons (exact, trailing whitespace ignored,
surrounding whitespace ignored) and, inside the first one that finds anything, prefers the
match closest to the line the header states.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Normalise = Callable[[str], str]

LEVELS: tuple[tuple[str, Normalise], ...] = (
    ("exact", lambda line: line),
    ("ignoring trailing whitespace", str.rstrip),
    ("ignoring surrounding whitespace", str.strip),
)

# A match this close to the stated line wins over farther ones without further argument.
NEAR = 10
# Diagnostics compare every offset with the hunk; skip them for huge files.
_DIAGNOSE_LIMIT = 2_000_000


class SeekFailure(Exception):
    """The context was not found, or found in several places; ``str()`` says which."""


def seek(lines: Sequence[str], old: Sequence[str], expected: int, floor: int) -> int:
    """Index in ``lines`` where ``old`` starts, at or after ``floor`` (the previous hunk's end).

    ``expected`` is the 0-based index the hunk header implies. Raises SeekFailure.
    """
    if not old:
        return _insertion_point(len(lines), expected, floor)
    earlier: list[int] = []
    for level, normalise in LEVELS:
        found = matches(lines, old, normalise)
        usable = [index for index in found if index >= floor]
        earlier = earlier or [index for index in found if index < floor]
        if usable:
            return _closest(usable, expected, level)
    if earlier:
        raise SeekFailure(
            f"the lines only occur at line {earlier[0] + 1}, before the end of the previous "
            "hunk; hunks must be in file order and must not overlap"
        )
    raise SeekFailure(near_miss(lines, old))


def _insertion_point(size: int, expected: int, floor: int) -> int:
    # A hunk with no old lines (diff -U0 insertions) has nothing to search for.
    if expected > size:
        raise SeekFailure(f"it inserts after line {expected} but the file has {size} lines")
    if expected < floor:
        raise SeekFailure("it inserts inside the previous hunk; hunks must be in file order")
    return expected


def matches(lines: Sequence[str], old: Sequence[str], normalise: Normalise) -> list[int]:
    wanted = [normalise(line) for line in old]
    first = wanted[0]
    found: list[int] = []
    for index in range(len(lines) - len(wanted) + 1):
        if normalise(lines[index]) != first:
            continue
        if all(normalise(lines[index + k]) == wanted[k] for k in range(1, len(wanted))):
            found.append(index)
    return found


def _closest(matches: list[int], expected: int, level: str) -> int:
    ranked = sorted(matches, key=lambda index: (abs(index - expected), index))
    best = ranked[0]
    if len(ranked) == 1:
        return best
    best_distance = abs(best - expected)
    second_distance = abs(ranked[1] - expected)
    clearly_closer = second_distance > best_distance and (
        best_distance <= NEAR or second_distance >= 3 * best_distance
    )
    if best_distance == 0 or clearly_closer:
        return best
    where = ", ".join(str(index + 1) for index in sorted(matches)[:8])
    raise SeekFailure(
        f"the lines match in {len(matches)} places ({level}: lines {where}) and none of them "
        f"is clearly the one near line {expected + 1}; add context lines that make it unique"
    )


def near_miss(lines: Sequence[str], old: Sequence[str]) -> str:
    """Describe the most similar block of the file, so the author can see what differs."""
    if not lines:
        return "the file is empty"
    if len(lines) * len(old) > _DIAGNOSE_LIMIT:
        return "the lines were not found"
    wanted = [line.strip() for line in old]
    have = [line.strip() for line in lines]
    best_index, best_score = 0, -1
    for index in range(max(1, len(lines) - len(old) + 1)):
        window = have[index : index + len(old)]
        score = sum(a == b for a, b in zip(window, wanted, strict=False))
        if score > best_score:
            best_index, best_score = index, score
    if best_score <= 0:
        return "no line of it occurs in the file"
    for k, line in enumerate(old):
        at = best_index + k
        actual = lines[at] if at < len(lines) else None
        if actual is None or actual.strip() != line.strip():
            shown = "the end of the file" if actual is None else repr(actual)
            return (
                f"the closest place is line {best_index + 1} ({best_score} of {len(old)} lines "
                f"agree), where line {at + 1} is {shown} instead of {line!r}"
            )
    return "the lines were not found"  # pragma: no cover - a full agreement would have matched
