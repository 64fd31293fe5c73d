"""The demo: a sample workspace and the scripted model turns that fix its bug.

Used when no real model is configured, so ``make demo`` shows the whole product on
a fresh machine. The replies are scripted, and the demo says so.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentls.agent.llm.scripted_server import Turn

DEMO_PROMPT = "The mean() in stats.py gives wrong results. Fix it and note the fix in README.md."
DEMO_MODEL = "demo"
WORKSPACE = Path(__file__).parent / "workspace"


def demo_turns() -> list[Turn]:
    # Imported here: ``agentls`` builds its parser from ``runner``, below this package.
    from agentls.agent.llm.scripted_server import text, tool_call, tool_calls

    return [
        tool_calls(
            tool_call("read_file", {"path": "stats.py"}),
            tool_call("read_file", {"path": "README.md"}),
            text="Let me read the code first.\n",
        ),
        tool_calls(
            tool_call(
                "edit_file",
                {
                    "path": "stats.py",
                    "old_str": "    return sum(values) / len(values) - 1\n",
                    "new_str": "    return sum(values) / len(values)\n",
                },
            ),
            text="mean() subtracts 1 from the result; removing that.\n",
        ),
        tool_call(
            "apply_patch",
            {
                "path": "README.md",
                "patch": "@@ -1,3 +1,5 @@\n # stats\n \n Tiny helpers: `mean` and `median`.\n"
                "+\n+Fixed: `mean` no longer subtracts 1 from the average.\n",
            },
        ),
        text(
            "Fixed `mean()` in stats.py (it subtracted 1 from the average) and noted the fix "
            "in README.md."
        ),
    ]


def fresh_workspace() -> Path:
    """A new copy of the sample workspace in a temp directory."""
    target = Path(tempfile.mkdtemp(prefix="agentls-demo-")) / "workspace"
    shutil.copytree(WORKSPACE, target)
    return target
