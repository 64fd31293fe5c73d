"""``agentls mask``: stdin to stdout through the outward pass (``agent.secrets``), for what
a script keeps or uploads besides agentls's own output (a CI run's diff, a log).

The whole input is masked at once, so a private key block spread over many lines is seen
whole. Bytes that are not UTF-8 pass through unchanged. The workspace's config is read
(when it can be) for the variable that holds the key (``llm.api_key_env``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentls.agent.errors import AgentError
from agentls.agent.folder.settings import FolderSettings
from agentls.agent.secrets import mask_outward


def add_mask_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mask = sub.add_parser("mask", help="copy stdin to stdout with every secret masked")
    mask.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
    # Bytes in, bytes out, masked whole here: not through the line-by-line masked output.
    mask.set_defaults(func=mask_command, redacted_output=False)


def mask_command(args: argparse.Namespace) -> int:
    try:
        FolderSettings(args.workspace or Path.cwd()).load()
    except AgentError as exc:  # the environment's secrets and the shapes are masked anyway
        print(f"agentls: {exc}; masking without the config", file=sys.stderr)
    text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    sys.stdout.buffer.write(mask_outward(text).encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()
    return 0
