"""The methods of dataclasses, compiled once and kept in a table. Each case runs in its
own interpreter: the table's ``exec`` is given to the process's ``dataclasses``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

#: Dataclasses of every kind the generated methods differ by, and what each one's
#: methods answer; printed as JSON by both interpreters.
CLASSES = """
import dataclasses, json, sys
from dataclasses import InitVar, dataclass, field

@dataclass(frozen=True)
class Frozen:
    a: int
    b: str = "x"
    c: list[int] = field(default_factory=list, compare=False)

@dataclass(order=True, slots=True)
class Ordered:
    n: int
    s: str = field(default="", repr=False)

@dataclass(kw_only=True, eq=False)
class KeywordsOnly:
    a: int
    b: int = 2

@dataclass
class WithInitVar:
    total: int = 0
    extra: InitVar[int] = 0
    def __post_init__(self, extra: int) -> None:
        self.total += extra

@dataclass(frozen=True, slots=True)
class FrozenSlots:
    x: float
    y: float = 0.0

answers = {}
f = Frozen(1)
answers["frozen"] = [repr(f), f == Frozen(1, "x", [9]), hash(f) == hash(Frozen(1)), f != Frozen(2)]
try:
    f.a = 3
except dataclasses.FrozenInstanceError as exc:
    answers["frozen set"] = type(exc).__name__
answers["ordered"] = [
    repr(Ordered(1, "z")), Ordered(1) < Ordered(2), sorted([Ordered(3), Ordered(1)])[0].n
]
k = KeywordsOnly(a=1)
answers["keywords"] = [repr(k), k == KeywordsOnly(a=1), k == k]
try:
    KeywordsOnly(1)
except TypeError as exc:
    answers["keywords positional"] = "TypeError"
answers["initvar"] = [repr(WithInitVar(1, 5)), WithInitVar(2) == WithInitVar(1, 1)]
s = FrozenSlots(1.5)
answers["slots"] = [repr(s), FrozenSlots.__slots__, hash(s) == hash(FrozenSlots(1.5))]
"""


def _python(code: str, *, env: dict[str, str] | None = None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _with_table(table: Path) -> str:
    return (
        "from pathlib import Path\n"
        "from agentls import dataclass_methods\n"
        f"dataclass_methods.install(Path({str(table)!r}))\n"
        + CLASSES
        + "answers['compiled here'] = len(dataclass_methods._compiled)\n"
        "answers['looked up'] = len(dataclass_methods._looked_up)\n"
        "print(json.dumps(answers))\n"
    )


def test_dataclasses_behave_the_same_with_their_methods_from_the_table(tmp_path: Path) -> None:
    table = tmp_path / "methods.marshal"
    plain = _python(CLASSES + "print(json.dumps(answers))\n")
    first = _python(_with_table(table))
    assert table.exists()  # written at exit
    second = _python(_with_table(table))

    assert isinstance(first["compiled here"], int) and first["compiled here"] > 20
    assert first["looked up"] == 0
    assert second["compiled here"] == 0  # every method came from the table
    assert second["looked up"] == first["compiled here"]
    for answers in (first, second):
        del answers["compiled here"], answers["looked up"]
        assert answers == plain
    assert plain["frozen set"] == "FrozenInstanceError"


def test_a_table_that_cannot_be_read_is_compiled_anew_and_replaced(tmp_path: Path) -> None:
    table = tmp_path / "methods.marshal"
    plain = _python(CLASSES + "print(json.dumps(answers))\n")
    for garbage in (b"", b"\x00not marshal at all", b"\xe9\x03\x00\x00"):  # the last: an int
        table.write_bytes(garbage)
        answers = _python(_with_table(table))
        assert isinstance(answers.pop("compiled here"), int)
        answers.pop("looked up")
        assert answers == plain
        assert table.read_bytes() != garbage
    again = _python(_with_table(table))
    assert again["compiled here"] == 0


def test_the_default_table_is_read_but_not_written_without_bytecode_writing(
    tmp_path: Path,
) -> None:
    """As the interpreter treats ``.pyc`` files under ``PYTHONDONTWRITEBYTECODE``."""
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from agentls import dataclass_methods\n"
        f"dataclass_methods.table_path = lambda: Path({str(tmp_path / 'default.marshal')!r})\n"
        "dataclass_methods.install()\n"
        + CLASSES
        + "print(json.dumps({'known': len(dataclass_methods._known)}))\n"
    )
    assert _python(code, env={"PYTHONDONTWRITEBYTECODE": "1"}) == {"known": 0}
    assert not (tmp_path / "default.marshal").exists()
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "default.marshal").exists()  # written where bytecode may be
    answers = _python(code, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert isinstance(answers["known"], int) and answers["known"] > 20  # and read


def test_the_table_is_kept_beside_agentls_own_bytecode() -> None:
    from agentls import dataclass_methods

    where = dataclass_methods.table_path()
    assert where is not None
    assert where.parent == Path(dataclass_methods.__file__).parent / "__pycache__"
    assert where.name == f"dataclass_methods.{sys.implementation.cache_tag}.marshal"
