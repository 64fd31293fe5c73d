"""The outward pass where things leave: every tool's result, session files, the key's own
variable whatever its name, and edits that must not write the mask over a secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
import yaml
from pydantic import BaseModel, ConfigDict
from secret_samples import SAMPLES, all_samples_text, leaked

from agentls.agent.config.loader import load
from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.exec.process import child_env
from agentls.agent.llm.models import ToolCall
from agentls.agent.sessions.entries import ToolResultEntry, UserMessage
from agentls.agent.sessions.store import SessionStore
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext, Tool, ToolCallResult, ToolContext, ToolResult
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess

YOLO = AgentConfig(system_prompt="t", confirm_mode="yolo", sandbox="off")
KEY_VALUE = "plain-looking-llm-key-0042"


class _NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LeakyTool(Tool[_NoArgs], name="leaky"):
    """A tool (an MCP server's, say) whose answer holds secrets."""

    interruptible: ClassVar[bool] = False

    async def run(self, args: _NoArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult.fail(all_samples_text())


def engine(root: Path) -> ExecutionEngine:
    registry = build_registry()
    registry.register(LeakyTool())
    config = AppConfig.model_validate({"workspace": {"root": str(root)}})
    return ExecutionEngine(registry, RunContext(DiskFileAccess(root), config))


async def call(e: ExecutionEngine, name: str, **args: object) -> ToolCallResult:
    return await e.execute_tool_call(ToolCall(id="c1", name=name, arguments=dict(args)), YOLO)


async def test_every_tools_result_is_masked_before_anyone_sees_it(tmp_path: Path) -> None:
    result = (await call(engine(tmp_path), "leaky")).result
    assert leaked(result.output) == [] and leaked(result.error or "") == []
    assert result.output.count("***") >= len(SAMPLES)


async def test_a_file_the_model_reads_reaches_it_masked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text(
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic '
        "eC1hY2Nlc3MtdG9rZW46Z2hzXzEyMzQ1Njc4OTBhYmNkZWY=\n"
    )
    (tmp_path / "leak.txt").write_text(all_samples_text())
    e = engine(tmp_path)
    read = (await call(e, "read_file", path="leak.txt")).result
    assert read.success and leaked(read.output) == []
    command = (await call(e, "execute_command", command="cat .git/config")).result
    assert "Z2hzXzEyMzQ1Njc4OTBhYmNkZWY" not in command.output
    assert "AUTHORIZATION: basic ***" in command.output


def test_the_keys_variable_is_a_secret_whatever_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM", KEY_VALUE)
    user = tmp_path / "config.yaml"
    user.write_text(yaml.safe_dump({"llm": {"api_key_env": "MY_LLM"}}))
    load(tmp_path, user_file=user, trusted=True)
    assert "MY_LLM" not in child_env()
    from agentls.agent.secrets import mask_outward

    assert mask_outward(f"key: {KEY_VALUE}.") == "key: ***."


async def test_a_command_gets_no_key_variable_and_prints_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_OTHER_LLM", KEY_VALUE)
    user = tmp_path / "config.yaml"
    user.write_text(yaml.safe_dump({"llm": {"api_key_env": "MY_OTHER_LLM"}}))
    load(tmp_path, user_file=user, trusted=True)
    (tmp_path / "k.txt").write_text(KEY_VALUE + "\n")
    e = engine(tmp_path)
    command = 'echo "[$MY_OTHER_LLM]"; cat k.txt; env'
    result = (await call(e, "execute_command", command=command)).result
    assert "[]" in result.output and "MY_OTHER_LLM" not in result.output
    assert KEY_VALUE not in result.output


def test_a_session_file_never_holds_a_secret(tmp_path: Path) -> None:
    session = SessionStore(tmp_path).open("s1")
    session.append_sync(UserMessage(run_id="r1", model_call_index=0, content=all_samples_text()))
    session.append_sync(
        ToolResultEntry(
            run_id="r1",
            model_call_index=1,
            call_id="c1",
            name="execute_command",
            success=True,
            content=all_samples_text(),
        )
    )
    on_disk = (tmp_path / "s1.jsonl").read_text()
    assert leaked(on_disk) == [] and leaked(json.dumps(json.loads(on_disk.splitlines()[0]))) == []
    # Memory and disk agree: the loaded session is the masked one.
    assert leaked(json.dumps([e.model_dump() for e in session.entries])) == []
    again = SessionStore(tmp_path).open("s1")
    assert [e.model_dump() for e in again.entries] == [e.model_dump() for e in session.entries]


ENV_FILE = "DEBUG=1\nDATABASE_URL=postgres://app:Pw0rd-s3cret9@db/app\nPORT=8000\n"


async def test_an_edit_around_a_secret_keeps_it(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(ENV_FILE)
    e = engine(tmp_path)
    shown = (await call(e, "read_file", path=".env")).result.output
    assert "Pw0rd-s3cret9" not in shown and "app:***@db" in shown
    done = await call(e, "edit_file", path=".env", old_str="PORT=8000", new_str="PORT=9000")
    assert done.result.success, done.result.output
    assert (tmp_path / ".env").read_text() == ENV_FILE.replace("8000", "9000")


async def test_an_edit_that_would_write_the_mask_over_a_secret_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(ENV_FILE)
    e = engine(tmp_path)
    await call(e, "read_file", path=".env")
    # The whole file rewritten from what the model was shown.
    masked = ENV_FILE.replace("Pw0rd-s3cret9", "***").replace("DEBUG=1", "DEBUG=0")
    write = (await call(e, "write_file", path=".env", content=masked)).result
    assert not write.success and "holds a secret" in write.output
    # Quoting the masked line: it is not in the file, and the error says why.
    old = "DATABASE_URL=postgres://app:***@db/app"
    edit = (await call(e, "edit_file", path=".env", old_str=old, new_str=old + "2")).result
    assert not edit.success and "shown as `***`" in edit.output
    # A patch that rewrites the line from the masked text.
    patch = f"--- a/.env\n+++ b/.env\n@@ -2 +2 @@\n-{old}\n+{old}?sslmode=require\n"
    patched = (await call(e, "apply_patch", patch=patch)).result
    assert not patched.success and "shown as `***`" in patched.output
    assert (tmp_path / ".env").read_text() == ENV_FILE
