"""Files made from the code (JSON Schemas, the extension's TypeScript types, generated
parts of the docs): each generator's ``python -m ...`` writes them, and with ``--check``
writes nothing and exits 1 when any differs from what the code gives, which the unit
tests check too. A generator only says what its files should hold (``outputs``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

Outputs = Callable[[], dict[Path, str]]


def stale(outputs: dict[Path, str]) -> list[Path]:
    """The files that differ from what they should hold (missing ones too)."""
    return [
        path
        for path, text in outputs.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def main(module: str, outputs: Outputs, argv: list[str] | None = None) -> int:
    """``python -m module [--check]``: write the files, or say which are out of date."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}")
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    if args.check:
        paths = stale(outputs())
        for path in paths:
            print(f"out of date: {path}", file=sys.stderr)
        if paths:
            print(f"run `python -m {module}`", file=sys.stderr)
        return 1 if paths else 0
    for path, text in outputs().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0
