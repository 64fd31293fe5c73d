"""``python -m agentls.cli``: the terminal front end alone (tests, debugging); the
``agentls`` command reaches it through ``agentls.__main__``."""

import sys

from agentls.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
