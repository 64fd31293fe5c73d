"""``agentls models``: the models this user can call now (the configured one, what the
local model server serves, the providers whose keys are set), with what is known of
each; ``--json`` prints the engine's ``ModelCatalog`` as ``agent/models`` answers it."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING

from agentls.cli.workspace_settings import add_settings_options, settings_of

if TYPE_CHECKING:
    from agentls.agent.llm.available import AvailableModel, ModelCatalog


def add_models_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    models = sub.add_parser("models", help="list the models you can use now")
    add_settings_options(models)
    models.add_argument("--json", action="store_true", help="print the list as JSON")
    models.set_defaults(func=models_command)


def models_command(args: argparse.Namespace) -> int:
    from agentls.agent.llm.available import available_models

    config = settings_of(args)
    if config is None:
        return 1
    catalog = asyncio.run(available_models(config, environ=os.environ))
    if args.json:
        print(json.dumps(catalog.to_wire(), indent=2))
    else:
        print_catalog(catalog)
    for problem in catalog.problems:
        print(f"agentls: warning: {problem}", file=sys.stderr)
    return 0


def print_catalog(catalog: ModelCatalog) -> None:
    """One line per model, the current one marked with ``*``, grouped by where it is."""
    heading = ("", "MODEL", "WHERE", "TOOLS", "IMAGES", "CONTEXT", "$/1M IN/OUT", "")
    rows: list[tuple[str, ...]] = [heading]
    rows += [_row(model, current=model.id == catalog.current) for model in catalog.models]
    widths = [max(len(row[column]) for row in rows) for column in range(len(heading))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


def _row(model: AvailableModel, *, current: bool) -> tuple[str, ...]:
    where = model.label.rsplit(" (", 1)[-1].rstrip(")") if "(" in model.label else model.source
    return (
        "*" if current else "",
        model.id,
        where,
        _yes_no(model.tools),
        _yes_no(model.images),
        _tokens(model.context_window),
        _price(model.input_cost_per_token, model.output_cost_per_token),
        model.note,
    )


def _yes_no(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "no"


def _tokens(count: int | None) -> str:
    if count is None:
        return "?"
    if count >= 1_000_000:
        return f"{count / 1_000_000:g}M"
    return f"{count // 1000}k" if count >= 1000 else str(count)


def _price(per_input: float | None, per_output: float | None) -> str:
    if per_input is None or per_output is None:
        return "?"
    return f"{per_input * 1e6:.2f}/{per_output * 1e6:.2f}"
