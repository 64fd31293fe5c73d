"""The methods of dataclasses, compiled once and kept in a table per package. Each case
runs in its own interpreter: the tables' ``exec`` is given to the process's
``dataclasses``."""

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


#: The module the classes are defined in (classes of ``__main__`` are not kept).
MODULE = "shapes_under_test"


def _program(tmp_path: Path, install: str | None) -> str:
    """Defines ``CLASSES`` as a module of its own, after ``install`` (code, or None for
    none), and prints what they answered and what the tables did."""
    (tmp_path / f"{MODULE}.py").write_text(CLASSES)
    return (
        "import json, sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from pathlib import Path\n"
        "from agentls import dataclass_methods\n"
        + (install or "")
        + f"\nfrom {MODULE} import answers\n"
        "tables = dataclass_methods._tables\n"
        "if tables is not None:\n"
        "    answers['compiled here'] = sum(map(len, tables.compiled.values()))\n"
        "    answers['looked up'] = sum(map(len, tables.looked_up.values()))\n"
        "print(json.dumps(answers))\n"
    )


def _with_tables(tmp_path: Path) -> str:
    return _program(tmp_path, f"dataclass_methods.install(Path({str(tmp_path / 'tables')!r}))")


def _table(tmp_path: Path) -> Path:
    return (
        tmp_path / "tables" / f"dataclass_methods.{sys.implementation.cache_tag}.{MODULE}.marshal"
    )


def test_dataclasses_behave_the_same_with_their_methods_from_the_table(tmp_path: Path) -> None:
    plain = _python(_program(tmp_path, None))
    first = _python(_with_tables(tmp_path))
    assert _table(tmp_path).exists()  # written at exit, named after the classes' package
    second = _python(_with_tables(tmp_path))

    assert isinstance(first["compiled here"], int) and first["compiled here"] > 20
    assert first["looked up"] == 0
    assert second["compiled here"] == 0  # every method came from the table
    assert second["looked up"] == first["compiled here"]
    for answers in (first, second):
        del answers["compiled here"], answers["looked up"]
        assert answers == plain
    assert plain["frozen set"] == "FrozenInstanceError"


def test_each_package_has_its_table_read_at_its_first_class(tmp_path: Path) -> None:
    _python(_with_tables(tmp_path))
    seen = _python(
        "import json\n"
        "from pathlib import Path\n"
        "from agentls import dataclass_methods\n"
        f"dataclass_methods.install(Path({str(tmp_path / 'tables')!r}))\n"
        "from dataclasses import dataclass\n"
        "@dataclass\n"
        "class InMain:\n"
        "    x: int\n"
        "print(json.dumps(sorted(dataclass_methods._tables.known)))\n"
    )
    assert MODULE not in seen  # not read: no class of that package was defined
    assert "__main__" not in seen  # and a script's classes are not kept


def test_a_table_that_cannot_be_read_is_compiled_anew_and_replaced(tmp_path: Path) -> None:
    plain = _python(_program(tmp_path, None))
    table = _table(tmp_path)
    table.parent.mkdir()
    for garbage in (b"", b"\x00not marshal at all", b"\xe9\x03\x00\x00"):  # the last: an int
        table.write_bytes(garbage)
        answers = _python(_with_tables(tmp_path))
        assert isinstance(answers.pop("compiled here"), int)
        answers.pop("looked up")
        assert answers == plain
        assert table.read_bytes() != garbage
    again = _python(_with_tables(tmp_path))
    assert again["compiled here"] == 0


def test_the_default_tables_are_read_but_not_written_without_bytecode_writing(
    tmp_path: Path,
) -> None:
    """As the interpreter treats ``.pyc`` files under ``PYTHONDONTWRITEBYTECODE``."""
    code = _program(
        tmp_path,
        f"dataclass_methods.table_directory = lambda: Path({str(tmp_path / 'tables')!r})\n"
        "dataclass_methods.install()",
    )
    quiet = _python(code, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert not _table(tmp_path).exists()
    assert quiet["looked up"] == 0
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert _table(tmp_path).exists()  # written where bytecode may be
    again = _python(code, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert again["compiled here"] == 0  # and read


def test_the_tables_are_kept_beside_agentls_own_bytecode() -> None:
    from agentls import dataclass_methods

    where = dataclass_methods.table_directory()
    assert where == Path(dataclass_methods.__file__).parent / "__pycache__"
