"""The ``agentls`` console script and ``python -m agentls``: the one place that knows the
three front ends, each of which knows only the engine.

The language server is dispatched before anything else is imported: an editor waits on
``initialize``, and the headless CLI's imports (argparse tables, the config models) would
only delay it. ``agentls acp`` (the Agent Client Protocol on stdio) is dispatched the same way.
Everything else is a subcommand of the terminal front end, ``agentls.cli``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: Arguments that mean "serve LSP"; ``serve`` is the subcommand spelling of ``--stdio``.
_SERVER_FLAGS = ("--stdio", "--tcp")


def server_argv(argv: Sequence[str]) -> list[str] | None:
    """The language server's own arguments when ``argv`` asks for it, else None."""
    if argv and argv[0] == "serve":
        return ["--stdio", *argv[1:]]
    if any(flag in argv for flag in _SERVER_FLAGS):
        return list(argv)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["acp"]:
        from agentls.acp_agent.main import main as acp_main

        return acp_main(arguments[1:])
    served = server_argv(arguments)
    if served is not None:
        from agentls.server.__main__ import run

        run(served)  # never returns: it ends the process
    from agentls.cli.main import main as cli_main

    return cli_main(arguments)


if __name__ == "__main__":
    sys.exit(main())
