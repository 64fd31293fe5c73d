"""The protocol models: they accept and write exactly today's wire shapes (the examples of
docs/protocol.md, what the editors' tests send), name bad fields, and the published JSON
Schema and TypeScript are generated from them and up to date."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.config.models import ConfirmMode, SelfEvalMode, choices
from agentls.agent.contract import RunRequest, RunResult, WireModel
from agentls.agent.llm.models import Usage
from agentls.agent.run import RunOutcome
from agentls.agent.run_record import RunRecord
from agentls.cli.main import build_parser
from agentls.server import protocol_schema as generator
from agentls.server.protocol import (
    METHODS,
    CancelParams,
    Method,
    RunParams,
    SessionParams,
    StatusParams,
    StepParams,
    parse_params,
)
from agentls.server.protocol_schema import SCHEMA_PATH, TS_PATH, outputs, protocol_schema
from agentls.server.schema_ts import Parent, declaration, declarations, ts_type

REPO = Path(__file__).resolve().parents[3]
BY_NAME = {m.name: m for m in METHODS}

# -- the examples of docs/protocol.md ---------------------------------------------------


def _messages(markdown: str) -> list[list[dict[str, Any]]]:
    """The JSON-RPC messages of each ```json block, in order."""
    blocks = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", markdown, flags=re.S):
        messages, pos = [], 0
        while pos < len(block):
            if block[pos].isspace():
                pos += 1
                continue
            message, pos = decoder.raw_decode(block, pos)
            messages.append(message)
        blocks.append(messages)
    return blocks


def _incoming(model: type[WireModel], data: Any) -> Any:
    """What the server reads from ``data``, written back with only what was sent."""
    return model.model_validate(data).model_dump(mode="json", exclude_unset=True)


def _outgoing(model: type[WireModel], data: Any) -> Any:
    """What the server writes for the model ``data`` describes."""
    return model.model_validate(data).to_wire()


def _check(method: Method, what: str, data: Any) -> None:
    client_sends = (method.direction == "clientToServer") == (what == "params")
    model = method.params if what == "params" else method.result
    assert model is not None, f"{method.name} has no {what}"
    again = (_incoming if client_sends else _outgoing)(model, data)
    assert again == data, f"{method.name} {what} do not round-trip"


def test_every_example_of_the_protocol_doc_round_trips() -> None:
    checked: set[tuple[str, str]] = set()
    for messages in _messages((REPO / "docs" / "protocol.md").read_text(encoding="utf-8")):
        responses = {m["id"]: m for m in messages if "method" not in m}
        for message in messages:
            method = BY_NAME.get(message.get("method", ""))
            if method is None:
                continue
            response = responses.get(message.get("id"), {})
            if "error" in response:  # the example of a bad request: refused as shown
                with pytest.raises(JsonRpcInvalidParams) as caught:
                    parse_params(method.params, message["params"])
                assert caught.value.message == response["error"]["message"]
                checked.add((method.name, "error"))
                continue
            _check(method, "params", message["params"])
            checked.add((method.name, "params"))
            if "result" in response:
                _check(method, "result", response["result"])
                checked.add((method.name, "result"))
    expected = {(m.name, "params") for m in METHODS} | {
        (m.name, "result") for m in METHODS if m.result is not None
    }
    expected.add(("agent/run", "error"))
    assert expected - checked == set(), "methods without an example in docs/protocol.md"


# -- today's shapes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"prompt": "say hello", "confirmMode": "confirm-all"},  # the Neovim and Emacs tests
        {"prompt": "say hi", "runId": "r1", "sessionId": "s1"},
        {
            "prompt": "p",
            "agent": "mixed",
            "runId": "vscode-abc-1",
            "confirmMode": "yolo",
            "maxSteps": 20,
            "selfEval": "off",
            "dryRun": True,
            "workDoneToken": "tok",
        },
        {"prompt": "p", "workDoneToken": 7, "runId": None, "sessionId": None},
    ],
)
def test_run_params_take_what_clients_send(params: dict[str, Any]) -> None:
    parsed = parse_params(RunParams, params)
    assert parsed.model_dump(mode="json", exclude_unset=True) == params
    request = parsed.to_request(run_id="r9", session_id="s9")
    assert isinstance(request, RunRequest)
    assert (request.run_id, request.session_id) == ("r9", "s9")
    assert request.prompt == params["prompt"]
    assert request.confirm_mode == params.get("confirmMode")


def test_python_code_uses_snake_case_names() -> None:
    request = RunRequest(prompt="p", session_id="s", confirm_mode="yolo", max_steps=3)
    assert (request.session_id, request.confirm_mode, request.max_steps) == ("s", "yolo", 3)
    assert RunParams.model_validate({"prompt": "p", "dry_run": True}).dry_run is True


def test_run_result_keeps_its_historic_names() -> None:
    state = RunRecord(messages=[], model="openai/m")
    state.finish("success", "done")
    state.usage = Usage(prompt_tokens=3, completion_tokens=2, total_tokens=5)
    result = RunOutcome(state, "r1", "s1", "build").to_result()
    duration = result.pop("duration_seconds")
    assert isinstance(duration, float)
    assert result == {
        "status": "success",
        "output": "done",
        "steps": 0,
        "tools_used": [],
        "model": "openai/m",
        "runId": "r1",
        "sessionId": "s1",
        "instructions": [],
        "usage": {
            "prompt_tokens": 3,
            "completion_tokens": 2,
            "total_tokens": 5,
            "cached_tokens": 0,
        },
    }


def test_failed_result_is_the_shape_clients_know() -> None:
    assert RunResult.failed("internal error: x", run_id="r", session_id="s").to_wire() == {
        "status": "failed",
        "output": "internal error: x",
        "steps": 0,
        "tools_used": [],
        "duration_seconds": 0.0,
        "model": None,
        "runId": "r",
        "sessionId": "s",
        "instructions": [],
        "usage": {
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "total_tokens": 0,
            "cached_tokens": 0,
        },
    }


def test_notifications_leave_out_what_is_unset() -> None:
    status = StatusParams(run_id="r", state="completed")
    assert status.to_wire() == {"runId": "r", "state": "completed"}
    step = StepParams(
        run_id="r",
        step=1,
        max_steps=5,
        phase="tool_start",
        tool="read_file",
        call_id="c1",
        args={"path": "a.py", "limit": None},
    )
    assert step.to_wire() == {
        "runId": "r",
        "step": 1,
        "maxSteps": 5,
        "phase": "tool_start",
        "tool": "read_file",
        "callId": "c1",
        "args": {"path": "a.py", "limit": None},  # the tool's own nulls are kept
    }


# -- bad params -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "params", "named"),
    [
        (RunParams, {"prompt": "p", "confirmMode": "sometimes"}, "confirmMode: Input should be"),
        (RunParams, {"prompt": "p", "maxStep": 3}, "maxStep: Extra inputs are not permitted"),
        (RunParams, {"prompt": ""}, "prompt: String should have at least 1 character"),
        (RunParams, {}, "prompt: Field required"),
        (RunParams, None, "prompt: Field required"),
        (RunParams, {"prompt": "p", "maxSteps": 0}, "maxSteps: Input should be greater than"),
        (RunParams, {"prompt": "p", "selfEval": "on"}, "selfEval: Input should be 'off'"),
        (RunParams, {"prompt": "p", "runId": "x" * 129}, "runId: String should have at most"),
        (RunParams, ["p"], "(params): Input should be a valid dictionary"),
        (CancelParams, {}, "runId: Field required"),
        (CancelParams, {"runId": ""}, "runId: String should have at least 1 character"),
        (CancelParams, {"runId": "r", "force": True}, "force: Extra inputs"),
        (SessionParams, {"session": "s"}, "sessionId: Field required"),
    ],
)
def test_bad_params_name_the_field(model: type[WireModel], params: Any, named: str) -> None:
    with pytest.raises(JsonRpcInvalidParams) as caught:
        parse_params(model, params)
    assert caught.value.message.startswith("invalid params: ")
    assert named in caught.value.message


# -- value sets named once ---------------------------------------------------------------


def test_the_extension_settings_offer_the_same_values() -> None:
    package = json.loads((REPO / "client-vscode" / "package.json").read_text(encoding="utf-8"))
    settings = package["contributes"]["configuration"]["properties"]
    assert tuple(settings["agentls.confirmMode"]["enum"]) == choices(ConfirmMode)
    assert tuple(settings["agentls.selfEval"]["enum"]) == choices(SelfEvalMode)


def test_the_cli_offers_the_same_values() -> None:
    parser = build_parser()
    run = next(a for a in parser._subparsers._group_actions if a.dest == "command")  # type: ignore[union-attr]
    options = {a.dest: a.choices for a in run.choices["run"]._actions}
    assert tuple(options["mode"]) == choices(ConfirmMode)
    assert tuple(options["self_eval"]) == choices(SelfEvalMode)


# -- generated files ---------------------------------------------------------------------


def test_published_schema_and_typescript_are_current() -> None:
    for path, text in outputs().items():
        assert path.exists(), f"{path} is missing: run `python -m agentls.server.protocol_schema`"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is out of date: run `python -m agentls.server.protocol_schema`"
        )
    assert SCHEMA_PATH.parent.name == "schema"
    assert TS_PATH.name == "protocol.ts"


def test_check_fails_on_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "protocol.ts"
    stale.write_text(TS_PATH.read_text(encoding="utf-8").replace("runId", "runID", 1))
    monkeypatch.setattr(generator, "TS_PATH", stale)
    monkeypatch.setattr(generator, "SCHEMA_PATH", tmp_path / "protocol.schema.json")
    generator.SCHEMA_PATH.write_text(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert generator.main(["--check"]) == 1
    assert generator.main([]) == 0  # regenerates it
    assert generator.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == TS_PATH.read_text(encoding="utf-8")


def test_schema_maps_every_method() -> None:
    schema = protocol_schema()
    assert list(schema["x-methods"]) == [m.name for m in METHODS]
    defs = schema["$defs"]
    for entry in schema["x-methods"].values():
        for ref in (entry["params"], entry.get("result")):
            if ref is not None:
                assert ref["$ref"].removeprefix("#/$defs/") in defs
    # what the server writes has exactly its fields; what it reads is validated by the model
    assert defs["RunResult"]["additionalProperties"] is False
    # Every field is always sent, but the worktree of a run that worked in one and the
    # folder (the language server names it, the CLI's --json has none).
    optional = {"worktree", "folder"}
    assert set(defs["RunResult"]["required"]) == set(defs["RunResult"]["properties"]) - optional
    assert "detail" not in defs["StatusParams"]["required"]
    assert defs["StatusParams"]["properties"]["detail"]["type"] == "string"  # never null
    assert defs["ConfirmMode"]["enum"] == list(choices(ConfirmMode))


# -- the TypeScript generator -------------------------------------------------------------


def test_typescript_of_the_subset_pydantic_emits() -> None:
    schema = {
        "$defs": {
            "Mode": {"enum": ["a", "b-c"], "type": "string", "description": "A mode."},
            "Thing": {
                "type": "object",
                "description": "A thing.\n\nOn two lines.",
                "additionalProperties": False,
                "required": ["id", "modes"],
                "properties": {
                    "id": {"type": "string", "description": "Its id."},
                    "modes": {"type": "array", "items": {"$ref": "#/$defs/Mode"}},
                    "size": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    "any": {},
                    "mixed": {
                        "type": "array",
                        "items": {"anyOf": [{"type": "string"}, {"const": 1}]},
                    },
                    "odd-name": {"type": "boolean"},
                },
            },
            "Open": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
        }
    }
    assert declarations(schema) == [
        "/** Every `Mode`, in order. */\n"
        "export const ModeValues = ['a', 'b-c'] as const;\n"
        "/** A mode. */\n"
        "export type Mode = (typeof ModeValues)[number];",
        "/**\n * A thing.\n *\n * On two lines.\n */\n"
        "export interface Thing {\n"
        "  /** Its id. */\n"
        "  id: string;\n"
        "  modes: Mode[];\n"
        "  size?: number | null;\n"
        "  tags?: Record<string, string>;\n"
        "  any?: unknown;\n"
        "  mixed?: (string | 1)[];\n"
        "  'odd-name'?: boolean;\n"
        "}",
        "export interface Open {\n  x: number;\n  [key: string]: unknown;\n}",
    ]


def test_enums_come_first_and_their_type_is_read_from_their_values() -> None:
    ts = outputs()[TS_PATH]
    first_interface = ts.index("export interface AgentInfo ")
    for mode in ("ConfirmMode", "RunState", "SelfEvalMode"):
        assert f"export type {mode} = (typeof {mode}Values)[number];" in ts
        assert ts.index(f"export const {mode}Values = [") < first_interface


def test_session_entries_extend_the_interface_of_their_shared_base() -> None:
    """A pydantic base class two or more models share is one interface they extend."""
    ts = outputs()[TS_PATH]
    assert "export interface Entry {\n" in ts
    assert "export interface OncePerToolCall extends Entry {\n  call_id: string;\n}" in ts
    assert "export interface ToolCallPart extends OncePerToolCall {\n  name: string;\n}" in ts
    assert "export interface ToolResultEntry extends ToolCallPart {\n  type:" in ts
    assert "export interface ApprovalDecision extends OncePerToolCall {\n  type:" in ts
    assert "export interface RunStartEntry extends Entry {\n  type: 'run_start';" in ts
    assert ts.count("  run_id: string;") == 1


def test_a_declaration_leaves_out_what_it_extends() -> None:
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "size": {"type": "number"}},
        "required": ["id", "size"],
        "additionalProperties": False,
    }
    assert declaration("Thing", schema, Parent("Base", frozenset({"id"}))) == (
        "export interface Thing extends Base {\n  size: number;\n}"
    )


def test_typescript_refuses_what_it_cannot_translate() -> None:
    with pytest.raises(ValueError, match="patternProperties"):
        ts_type({"type": "object", "patternProperties": {"^x": {"type": "string"}}})


def test_cli_refuses_a_bad_run_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentls.cli.main import main

    assert main(["run", "go", "--max-steps", "0", "--workspace", str(tmp_path)]) == 1
    assert "max_steps: Input should be greater than or equal to 1" in capsys.readouterr().err
