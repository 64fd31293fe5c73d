"""``agent/command`` over stdio: a client that declares ``experimental.agentls.commandOutput``
sees each command the agent runs as it runs (started, output in order, the exit code),
with secrets masked; a client that does not declare it gets none of it."""

from __future__ import annotations

import copy

from agentls_e2e import VSCODE, LspFactory, plain

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

SECRET_VALUE = "mirror-secret-value-0123456789"
PATTERN_KEY = "sk-mirrortest0123456789abcdef"
COMMAND = (
    "echo first; sleep 0.3; echo second; sleep 0.3; "
    f"echo {SECRET_VALUE}; echo key {PATTERN_KEY}; echo last >&2; exit 3"
)

MIRRORING = copy.deepcopy(VSCODE)
MIRRORING.experimental = {"agentls": {"askUser": True, "commandOutput": True}}


async def test_a_command_streams_in_order_with_its_exit_code_and_no_secret(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", tool_call("execute_command", {"command": COMMAND}), text("Done."))
    client = await lsp(caps=MIRRORING, env={"MIRROR_TEST_API_KEY": SECRET_VALUE})
    result = plain(await client.run(prompt="run it", runId="c1", confirmMode="yolo"))
    assert result["status"] == "success"
    events = client.of("agent/command", "c1")
    [started] = [e for e in events if e["event"] == "started"]
    [ended] = [e for e in events if e["event"] == "ended"]
    outputs = [e for e in events if e["event"] == "output"]
    assert events[0] is started and events[-1] is ended
    assert started["tool"] == "execute_command"
    assert "echo first" in started["command"] and SECRET_VALUE not in started["command"]
    assert PATTERN_KEY not in started["command"]
    shown = "".join(e["text"] for e in outputs)
    assert shown.index("first") < shown.index("second") < shown.index("last")
    assert SECRET_VALUE not in shown and PATTERN_KEY not in shown
    assert "***" in shown
    # Output came while the command ran, not all at its end.
    assert len(outputs) >= 2
    assert ended["exitCode"] == 3
    step = [s for s in client.of("agent/step", "c1") if s.get("callId") == started["callId"]]
    assert step, "agent/command names the call of agent/step"


async def test_a_client_that_does_not_ask_gets_no_command_output(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", tool_call("execute_command", {"command": "echo hi"}), text("Done."))
    client = await lsp()
    result = plain(await client.run(prompt="run it", runId="c2", confirmMode="yolo"))
    assert result["status"] == "success"
    assert client.of("agent/command", "c2") == []
