"""``agentls config-schema`` and ``agentls config-docs``: the JSON Schema of
``.agentls.yaml`` and its Markdown table, both generated from the settings' models
(``agent.config.docs``)."""

from __future__ import annotations

import argparse
import json


def add_config_doc_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = sub.add_parser("config-schema", help="print the JSON Schema of .agentls.yaml")
    schema.set_defaults(func=config_schema_command)
    docs = sub.add_parser("config-docs", help="print the configuration table (Markdown)")
    docs.set_defaults(func=config_docs_command)


def config_schema_command(args: argparse.Namespace) -> int:
    from agentls.agent.config.docs import config_schema

    print(json.dumps(config_schema(), indent=2))
    return 0


def config_docs_command(args: argparse.Namespace) -> int:
    from agentls.agent.config.docs import config_table

    print(config_table())
    return 0
