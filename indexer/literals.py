"""Literals that every match of a regex must contain, for a cheap pre-scan.

The pattern is parsed with the standard library's own regex parser (``re._parser``,
private but stable across 3.11–3.13); any surprise in its output means "no
pre-scan", never a wrong answer. The result is a set of alternatives: a match
must contain at least one of them (``foo|bar`` → {foo, bar}).
"""

from __future__ import annotations

import importlib
import re
from typing import Any


def _load(name: str) -> Any:
    try:  # 3.11+ names; the old sre_parse alias warns on import
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover
        return None


_p = _load("re._parser")
_c = _load("re._constants")

MIN_LITERAL = 2
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")

Alternatives = frozenset[str]


def _score(option: Alternatives | None) -> tuple[int, int]:
    if not option:
        return (-1, 0)
    # The weakest alternative bounds how selective the pre-scan is; fewer scans is better.
    return (min(len(s) for s in option), -len(option))


def _best(options: list[Alternatives | None]) -> Alternatives | None:
    best: Alternatives | None = None
    for option in options:
        if option and _score(option) > _score(best):
            best = option
    return best


def _required(items: Any) -> Alternatives | None:
    options: list[Alternatives | None] = []
    run: list[str] = []
    for op, av in items:
        name = str(op)
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            options.append(frozenset({"".join(run)}))
            run = []
        if op is _c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            # A scoped flag such as (?i:...) changes how the literals match: skip it.
            options.append(None if add_flags or del_flags else _required(sub))
        elif op is _c.BRANCH:
            branches = [_required(b) for b in av[1]]
            if all(branches):
                options.append(frozenset().union(*(b for b in branches if b)))
        elif name in _REPEATS:
            low, _high, sub = av
            if low >= 1:
                options.append(_required(sub))
        elif name == "ATOMIC_GROUP":
            options.append(_required(av))
        # Everything else (classes, anchors, backrefs, lookarounds) breaks a literal run
        # and requires nothing we can scan for.
    if run:
        options.append(frozenset({"".join(run)}))
    return _best(options)


def required_literals(pattern: str, flags: int = 0) -> tuple[tuple[str, ...], bool] | None:
    """(literals, ignore_case) such that every match contains one literal, or None.

    ``ignore_case`` tells the caller to compare case-insensitively; it is set when
    the pattern is compiled with IGNORECASE or starts with ``(?i)``.
    """
    if _p is None or _c is None:
        return None
    try:
        parsed = _p.parse(pattern, flags)
        found = _required(parsed)
        all_flags = int(parsed.state.flags) | flags
    except Exception:  # any parser surprise: just no pre-scan
        return None
    if not found or min(len(s) for s in found) < MIN_LITERAL:
        return None
    if all_flags & re.VERBOSE:
        return None  # whitespace and comments already stripped, but stay conservative
    return tuple(sorted(found)), bool(all_flags & re.IGNORECASE)


_NEWLINE_CATEGORIES = (
    "CATEGORY_SPACE",
    "CATEGORY_NOT_WORD",
    "CATEGORY_NOT_DIGIT",
    "CATEGORY_LINEBREAK",
    "CATEGORY_UNI_SPACE",
    "CATEGORY_UNI_NOT_WORD",
    "CATEGORY_UNI_NOT_DIGIT",
    "CATEGORY_UNI_LINEBREAK",
)
_LOCAL_OPS = frozenset(
    {
        "LITERAL",
        "NOT_LITERAL",
        "ANY",
        "IN",
        "SUBPATTERN",
        "BRANCH",
        "AT",
        "MAX_REPEAT",
        "MIN_REPEAT",
        "POSSESSIVE_REPEAT",
        "ATOMIC_GROUP",
        "GROUPREF",
    }
)
_LOCAL_ATS = frozenset({"AT_BEGINNING", "AT_END", "AT_BOUNDARY", "AT_NON_BOUNDARY"})


def _class_has_newline(items: Any) -> bool:
    negate = any(str(op) == "NEGATE" for op, _ in items)
    hit = False
    for op, av in items:
        name = str(op)
        if (
            (name == "LITERAL" and av == 10)
            or (name == "RANGE" and av[0] <= 10 <= av[1])
            or (name == "CATEGORY" and str(av) in _NEWLINE_CATEGORIES)
        ):
            hit = True
    return hit != negate


def _local(items: Any, dotall: bool) -> bool:
    for op, av in items:
        name = str(op)
        if name not in _LOCAL_OPS:
            return False  # lookarounds, \A, \Z, conditionals: may see past the line
        if name == "LITERAL" and av == 10:
            return False
        if name == "NOT_LITERAL" and av != 10:
            return False
        if name == "ANY" and dotall:
            return False
        if name == "IN" and _class_has_newline(av):
            return False
        if name == "AT" and str(av) not in _LOCAL_ATS:
            return False
        if name == "SUBPATTERN":
            _group, add_flags, _del, sub = av
            if not _local(sub, dotall or bool(add_flags & re.DOTALL)):
                return False
        elif (
            (name == "BRANCH" and not all(_local(b, dotall) for b in av[1]))
            or (name in _REPEATS and not _local(av[2], dotall))
            or (name == "ATOMIC_GROUP" and not _local(av, dotall))
        ):
            return False
    return True


def line_local(pattern: str, flags: int = 0) -> bool:
    """True when no match can span or look beyond one line, so each candidate line can
    be searched on its own (``search(data, line_start, line_end)``)."""
    if _p is None:
        return False
    try:
        parsed = _p.parse(pattern, flags)
        dotall = bool((int(parsed.state.flags) | flags) & re.DOTALL)
        return _local(parsed, dotall)
    except Exception:
        return False
