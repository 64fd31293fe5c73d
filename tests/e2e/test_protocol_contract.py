"""The protocol contract over stdio: bad params are InvalidParams naming the field, and
everything the real server sends (results, notifications, its questions) is valid
against the published JSON Schema (agent/schema/protocol.schema.json)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from agentls_e2e import LspFactory, plain
from pygls.exceptions import JsonRpcException

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.server.protocol_schema import SCHEMA_PATH

SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
METHODS = SCHEMA["x-methods"]


def assert_valid(instance: Any, ref: dict[str, str], what: str) -> None:
    validator = jsonschema.Draft202012Validator({"$defs": SCHEMA["$defs"], **ref})
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]
    assert problems == [], f"{what} does not match {ref['$ref']}: {problems}; {instance}"


BAD = [
    ("agent/run", {"prompt": "go", "confirmMode": "sometimes"}, "confirmMode: Input should be"),
    ("agent/run", {"prompt": "go", "maxStep": 3}, "maxStep: Extra inputs are not permitted"),
    ("agent/run", {"confirmMode": "yolo"}, "prompt: Field required"),
    ("agent/run", {"prompt": "go", "selfEval": True}, "selfEval: Input should be"),
    ("agent/cancel", {}, "runId: Field required"),
    ("agent/cancel", {"runId": "r", "now": True}, "now: Extra inputs are not permitted"),
    ("agent/session", {"id": "s1"}, "sessionId: Field required"),
]


async def test_bad_params_are_invalid_params_naming_the_field(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("fine"))
    client = await lsp()
    for method, params, named in BAD:
        with pytest.raises(JsonRpcException) as caught:
            await client.request(method, params)
        assert caught.value.code == -32602, (method, params, caught.value)
        assert named in caught.value.message, (method, params, caught.value.message)
    assert client.events == [], "a refused run must not start"
    # the server goes on as before
    result = plain(await client.run(prompt="go", runId="ok1", confirmMode="yolo"))
    assert result["status"] == "success"


async def test_what_the_server_sends_matches_the_published_schema(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    plan = {"goal": "Paint it", "steps": [{"text": "ask", "status": "in_progress"}]}
    scripted.add(
        "alice",
        tool_call("update_plan", plan),
        tool_call("ask_user", {"question": "Which colour?"}),
        tool_call("read_file", {"path": "src/app.py"}),
        text("Blue it is."),
    )
    client = await lsp()
    client.answers = ["blue"]
    result = plain(await client.run(prompt="paint", runId="c1", sessionId="cs1"))
    assert result["status"] == "success", result
    assert_valid(result, METHODS["agent/run"]["result"], "agent/run result")

    seen = {method for method, _ in client.events}
    assert seen == {"agent/status", "agent/stream", "agent/step", "agent/plan", "agent/context"}
    for method, params in client.events:
        assert_valid(params, METHODS[method]["params"], method)
    assert client.questions == [{"runId": "c1", "question": "Which colour?"}]
    assert_valid(client.questions[0], METHODS["agent/askUser"]["params"], "agent/askUser")
    assert client.of("agent/plan", "c1")[0]["steps"] == plan["steps"]
    ends = [p for p in client.of("agent/step", "c1") if p["phase"] == "tool_end"]
    assert [p["tool"] for p in ends] == ["update_plan", "ask_user", "read_file"]

    for method, params in [
        ("agent/agents", {}),
        ("agent/commands", {}),
        ("agent/ping", {}),
        ("agent/sessions", {}),
        ("agent/session", {"sessionId": "cs1"}),
        ("agent/cancel", {"runId": "c1"}),
    ]:
        assert_valid(params, METHODS[method]["params"], f"{method} params")
        answer = plain(await client.request(method, params))
        assert_valid(answer, METHODS[method]["result"], f"{method} result")
    sessions = plain(await client.request("agent/sessions", {}))["sessions"]
    assert [s["sessionId"] for s in sessions] == ["cs1"]


def test_the_schema_would_catch_a_wrong_shape() -> None:
    """The check above is not vacuous: the schema refuses what the server must not send."""
    ref = METHODS["agent/status"]["params"]
    with pytest.raises(AssertionError, match="state"):
        assert_valid({"runId": "r", "state": "sleeping"}, ref, "status")
    with pytest.raises(AssertionError, match="detail"):
        assert_valid({"runId": "r", "state": "failed", "detail": None}, ref, "status")
    with pytest.raises(AssertionError, match="toolsUsed"):
        assert_valid(
            {
                "status": "success",
                "output": "",
                "steps": 0,
                "toolsUsed": [],
                "duration_seconds": 0,
                "model": None,
                "runId": "r",
                "sessionId": "s",
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            },
            METHODS["agent/run"]["result"],
            "result",
        )
