"""Translate a Python bytes regex into an equivalent Hyperscan expression, or refuse.

Hyperscan speaks PCRE syntax, which reads some text differently from Python's
``re`` (``x{,3}``, ``\\s``, case folding of classes). So the pattern is not passed
through as text: it is parsed with Python's own parser (``re._parser``) and
rebuilt from the tree, with every single-byte atom (a literal, ``.``, a class,
``\\w``...) written as the explicit set of bytes that Python's own engine accepts
for it under the pattern's flags. Case-insensitivity is thereby already inside
the byte sets, so Hyperscan never folds case itself.

Only constructs whose meaning is the same in both engines *for deciding whether
a line holds a match* are translated: literals and byte classes, groups,
alternation, greedy and lazy repeats, and the ``^ \\b \\B`` anchors under
MULTILINE. Anything else (back-references, lookarounds, atomic groups, possessive
repeats, ``\\A``/``\\Z``, scoped flags, LOCALE) returns None and the caller keeps
the pure-Python path. Lines found by an exact translation are not re-checked in
Python, so the translator refuses whenever it is unsure.

``$`` is the exception: Hyperscan 5.4 (hyperscan 0.9.1 on PyPI) misses some matches
that end right before the last newline of a buffer (``.[ab]$`` in ``"…xa\\n"`` once the
buffer passes 16 bytes; found by the random-pattern test, reproduced on Hyperscan
alone). So ``$`` is left out, which makes the expression match a superset of the
lines, and the translation says it is not exact: the caller checks each candidate line
with Python's regex.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, NamedTuple

try:  # private but stable across 3.11-3.13; any surprise means "no translation"
    _parser: Any = importlib.import_module("re._parser")
    _compiler: Any = importlib.import_module("re._compiler")
except ImportError:  # pragma: no cover
    _parser = _compiler = None

_ATOMS = frozenset({"LITERAL", "NOT_LITERAL", "ANY", "IN"})
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT"})
_ANCHORS = {
    "AT_BEGINNING": b"^",
    "AT_END": b"",  # see the module's doc: left out, the lines are checked in Python
    "AT_BOUNDARY": b"\\b",
    "AT_NON_BOUNDARY": b"\\B",
}
#: Above this, Hyperscan builds huge automata (or refuses); Python handles it instead.
MAX_REPEAT_BOUND = 1000


class Translation(NamedTuple):
    """A Hyperscan expression; ``exact`` False when it matches a superset of the lines
    (candidates to check with Python's regex)."""

    expression: bytes
    exact: bool


class _Refuse(Exception):
    """A construct without a safe translation."""


def _byte_class(values: list[int]) -> bytes:
    """An explicit class: ``[\\x41-\\x5a\\x61]``. Never negated, never folded."""
    if not values:
        raise _Refuse("an atom that matches nothing")
    if len(values) == 1:
        return b"\\x%02x" % values[0]
    parts: list[bytes] = []
    start = prev = values[0]
    for value in [*values[1:], -1]:
        if value == prev + 1:
            prev = value
            continue
        parts.append(b"\\x%02x" % start if start == prev else b"\\x%02x-\\x%02x" % (start, prev))
        start = prev = value
    return b"[" + b"".join(parts) + b"]"


class _Translator:
    def __init__(self, state: Any, flags: int) -> None:
        self.state = state
        self.flags = flags
        self._atoms: dict[str, bytes] = {}
        self.exact = True

    def atom(self, node: tuple[Any, Any]) -> bytes:
        """The bytes Python accepts for a single-byte atom, asked of Python itself."""
        key = repr(node)
        cached = self._atoms.get(key)
        if cached is None:
            rx = _compiler.compile(_parser.SubPattern(self.state, [node]), self.flags)
            accepted = [b for b in range(256) if rx.fullmatch(bytes((b,))) is not None]
            cached = self._atoms[key] = _byte_class(accepted)
        return cached

    def sequence(self, items: Any) -> bytes:
        out: list[bytes] = []
        for node in items:
            op, av = node
            name = str(op)
            if name in _ATOMS:
                out.append(self.atom(node))
            elif name == "AT":
                anchor = _ANCHORS.get(str(av))
                if anchor is None:
                    raise _Refuse(str(av))
                if not anchor:
                    self.exact = False
                out.append(anchor)
            elif name == "SUBPATTERN":
                _group, add_flags, del_flags, sub = av
                if add_flags or del_flags:
                    raise _Refuse("scoped flags")
                out.append(b"(?:" + self.sequence(sub) + b")")
            elif name == "BRANCH":
                out.append(b"(?:" + b"|".join(self.sequence(b) for b in av[1]) + b")")
            elif name in _REPEATS:
                low, high, sub = av
                unbounded = high == _parser.MAXREPEAT
                if low > MAX_REPEAT_BOUND or (not unbounded and high > MAX_REPEAT_BOUND):
                    raise _Refuse("a large repeat")
                bound = b"{%d,}" % low if unbounded else b"{%d,%d}" % (low, high)
                out.append(b"(?:" + self.sequence(sub) + b")" + bound)
            else:
                raise _Refuse(name)
        return b"".join(out)


def translate(pattern: bytes, flags: int) -> Translation | None:
    """A Hyperscan expression (to compile with HS_FLAG_MULTILINE only) that matches
    where ``re.compile(pattern, flags)`` does (on more lines when not ``exact``) and
    never matches the empty string, or None.

    ``flags`` must include ``re.MULTILINE`` (the search always uses it), so that
    ``^``/``$`` mean line start/end in both engines.
    """
    if _parser is None or not flags & re.MULTILINE:
        return None
    try:
        parsed = _parser.parse(pattern, flags)
        all_flags = int(parsed.state.flags) | flags
        if all_flags & (re.LOCALE | re.DOTALL):
            return None
        if parsed.getwidth()[0] == 0:
            return None  # can match the empty string (``a*$``): lines are found by end
        translator = _Translator(parsed.state, all_flags)
        expression = translator.sequence(parsed)
        return Translation(expression, translator.exact)
    except (_Refuse, re.error, RecursionError, ValueError, TypeError, AttributeError):
        return None


def literal_expression(needle: bytes, fold: bool) -> bytes:
    """A Hyperscan expression for a plain byte string (ASCII case-folded if ``fold``)."""
    out: list[bytes] = []
    for byte in needle:
        if fold and (65 <= byte <= 90 or 97 <= byte <= 122):
            out.append(b"[\\x%02x\\x%02x]" % (byte & ~0x20, byte | 0x20))
        else:
            out.append(b"\\x%02x" % byte)
    return b"".join(out)
