"""The ``agentls`` command line past the server dispatch of ``agentls.__main__``.

``agentls demo`` drives the language server from a terminal client; every other command
is the headless CLI of ``agentls.agent.cli``, which knows nothing of LSP.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from agentls.agent import cli as agent_cli


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = agent_cli.build_parser().parse_args(arguments)
    if args.command == "demo" and not args.headless:
        from agentls.agent.demo.runner import run_demo
        from agentls.server.demo import run_lsp_demo

        return run_demo(model=args.model, api_base=args.api_base, lsp_runner=run_lsp_demo)
    return agent_cli.main(arguments)


if __name__ == "__main__":
    sys.exit(main())
