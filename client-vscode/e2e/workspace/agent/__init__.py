"""This workspace's own `agent` package, named like a part of agentls. Importing it leaves the
file `imported-agent` in the workspace; the e2e suite checks that the extension never did."""
from pathlib import Path

(Path(__file__).resolve().parent.parent / "imported-agent").touch()
