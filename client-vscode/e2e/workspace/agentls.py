"""This workspace's own `agentls` module, named like a part of agentls. Importing it leaves the
file `imported-agentls` next to it; the e2e suite checks that the extension never did."""
from pathlib import Path

(Path(__file__).resolve().parent / "imported-agentls").touch()
