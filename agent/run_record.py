"""The record of one run: its messages, its steps and their tool results, its status,
output and usage (``RunRecord``), which the front ends turn into the run's result."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agentls.agent.llm.models import LLMResponse, Usage
from agentls.agent.text import shorten_args
from agentls.agent.tools.base import ToolCallResult


@dataclass(frozen=True)
class StepResult:
    """The immutable outcome of one loop iteration."""

    step_number: int
    llm_response: LLMResponse
    tool_calls_made: list[ToolCallResult]
    #: The model that answered this step.
    model: str | None = None
    timestamp: float = field(default_factory=time.time)


@dataclass
class RunRecord:
    """Everything a run accumulates; ``status`` is running|success|partial|failed."""

    messages: list[dict[str, Any]]
    steps: list[StepResult] = field(default_factory=list)
    status: str = "running"
    final_output: str | None = None
    start_time: float = field(default_factory=time.time)
    #: The model of the run's last answer (each step names its own).
    model: str | None = None
    usage: Usage = field(default_factory=Usage)
    end_time: float | None = None

    @property
    def current_step(self) -> int:
        return len(self.steps)

    @property
    def total_tool_calls(self) -> int:
        return sum(len(step.tool_calls_made) for step in self.steps)

    @property
    def is_finished(self) -> bool:
        return self.status != "running"

    def finish(self, status: str, output: str | None) -> None:
        self.status = status
        self.final_output = output
        self.end_time = time.time()

    def to_output_dict(self) -> dict[str, Any]:
        """The run as JSON-ready data (the CLI's ``--json`` and the LSP result)."""
        tools_used = [
            {
                "name": call.tool_name,
                "args": shorten_args(call.args, 60),
                "success": call.result.success,
            }
            for step in self.steps
            for call in step.tool_calls_made
        ]
        end = self.end_time if self.end_time is not None else time.time()
        return {
            "status": self.status,
            "output": self.final_output or "",
            "steps": len(self.steps),
            "tools_used": tools_used,
            "duration_seconds": round(end - self.start_time, 3),
            "model": self.model,
        }
