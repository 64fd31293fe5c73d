"""agentls's own ACP messages are the SDK's, to the byte: each one agentls sends, validated
by the SDK's schema and dumped again the way the SDK dumps it, is the same JSON (keys in
the same order, the same fields left out); each one the SDK's client sends reads into
agentls's models with the same values."""

from __future__ import annotations

import json
from typing import Any

import acp.schema as sdk
import pytest
from acp.utils import serialize_params
from pydantic import BaseModel

from agentls.acp_agent import approver, models
from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.protocol import schema as ours
from agentls.acp_agent.updates import UpdateSender
from agentls.agent import events
from agentls.agent.llm.available import AvailableModel, ModelCatalog


def same_json(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert json.dumps(mine) == json.dumps(theirs)


def sent_as_params(method_model: type[BaseModel], params: dict[str, Any]) -> None:
    """A request or notification of the agent: the SDK serialised its params this way."""
    same_json(params, serialize_params(method_model.model_validate(params)))


def sent_as_result(model: type[BaseModel], result: dict[str, Any], *, normalised: bool) -> None:
    """A response of the agent: dumped as the SDK's connection (``exclude_unset``) or,
    for the methods whose results it normalised, as ``serialize_params``."""
    theirs = model.model_validate(result)
    dumped = (
        serialize_params(theirs)
        if normalised
        else theirs.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
    )
    same_json(result, dumped)


class _Recorder:
    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any) -> None:
        self.updates.append(update)


async def test_every_session_update_a_run_sends_is_the_sdks() -> None:
    client = _Recorder()
    sender = UpdateSender(client, "s1", "/ws")  # type: ignore[arg-type]
    sender.applied([])
    run: list[events.AgentEvent] = [
        events.StreamText("Hello é ✓ "),
        events.Notice("warning", "careful"),
        events.ToolStarted(1, 5, "c1", "read_file", {"path": "app.py", "n": None}),
        events.ToolFinished(1, 5, "c1", "read_file", {"path": "app.py"}, True, "x = 1"),
        events.ToolStarted(1, 5, "c2", "update_plan", {}),
        events.PlanUpdated("goal", [events.PlanStep("a", "done"), events.PlanStep("b")]),
        events.ContextMeasured(1, 100, 1000),
        events.SubagentStarted("d1", "explore", "find foo", "openai/small"),
        events.SubagentEvent("d1", "explore", events.ToolStarted(1, 2, "d1/c", "grep", {})),
    ]
    for event in run:
        sender.observer(event)
    await sender.flush()
    await sender.close()
    assert len(client.updates) >= 8
    for update in client.updates:
        sent_as_params(sdk.SessionNotification, {"sessionId": "s1", "update": update.to_wire()})
    sent_as_params(
        sdk.SessionNotification,
        {
            "sessionId": "s1",
            "update": helpers.update_available_commands(
                [
                    ours.AvailableCommand(name="init", description="d"),
                    ours.AvailableCommand(
                        name="model", description="m", input=ours.UnstructuredCommandInput(hint="h")
                    ),
                ]
            ).to_wire(),
        },
    )
    for update in [
        helpers.update_user_message_text("hi"),
        helpers.update_agent_thought_text("Model: x\n"),
        helpers.update_tool_call(
            "c1",
            status="completed",
            content=[helpers.tool_diff_content("/ws/a", "new", None)],
        ),
        helpers.update_tool_call(
            "c1", title="t", content=[helpers.tool_diff_content("/a", "n", "o")]
        ),
    ]:
        sent_as_params(sdk.SessionNotification, {"sessionId": "s1", "update": update.to_wire()})


@pytest.mark.parametrize(
    "options",
    [
        approver.call_options("pytest*"),
        approver.call_options(None),
        approver.edit_options("write_file"),
        approver.PROGRAM_OPTIONS,
    ],
)
def test_a_permission_question_is_the_sdks(options: list[ours.PermissionOption]) -> None:
    call = ours.ToolCallUpdate(
        tool_call_id="c1",
        title="execute_command ls",
        kind="execute",
        status="pending",
        content=[helpers.tool_content(helpers.text_block("why"))],
        raw_input={"command": "ls"},
    )
    params = {
        "sessionId": "s1",
        "toolCall": call.to_wire(),
        "options": [option.to_wire() for option in options],
    }
    sent_as_params(sdk.RequestPermissionRequest, params)


def test_the_answers_of_the_agents_methods_are_the_sdks() -> None:
    init = ours.InitializeResponse(
        protocol_version=ours.PROTOCOL_VERSION,
        agent_capabilities=ours.AgentCapabilities(
            load_session=True,
            prompt_capabilities=ours.PromptCapabilities(embedded_context=True, image=True),
        ),
        agent_info=ours.Implementation(name="agentls", title="agentls", version="1.0"),
    )
    sent_as_result(sdk.InitializeResponse, init.to_wire(), normalised=False)
    catalog = ModelCatalog(
        current="openai/a",
        models=[
            AvailableModel(
                id="openai/a",
                label="a",
                source="configured",
                tools=True,
                images=None,
                context_window=128000,
                input_cost_per_token=1e-6,
                output_cost_per_token=2e-6,
            ),
            AvailableModel(
                id="openai/b",
                label="b",
                source="configured",
                tools=None,
                images=None,
                context_window=None,
                input_cost_per_token=None,
                output_cost_per_token=None,
            ),
        ],
        problems=[],
    )
    option = models.model_option(catalog, None)
    modes = ours.SessionModeState(
        current_mode_id="build",
        available_modes=[
            ours.SessionMode(id="build", name="build", description="Builds."),
            ours.SessionMode(id="x", name="x"),
        ],
    )
    new = ours.NewSessionResponse(session_id="abc", config_options=[option], modes=modes)
    sent_as_result(sdk.NewSessionResponse, new.to_wire(), normalised=False)
    load = ours.LoadSessionResponse(config_options=[option], modes=modes)
    sent_as_result(sdk.LoadSessionResponse, load.to_wire(), normalised=True)
    chosen = ours.SetSessionConfigOptionResponse(config_options=[option])
    sent_as_result(sdk.SetSessionConfigOptionResponse, chosen.to_wire(), normalised=True)
    sent_as_result(
        sdk.SetSessionModeResponse, ours.SetSessionModeResponse().to_wire(), normalised=True
    )
    stops: list[ours.StopReason] = ["end_turn", "cancelled", "max_turn_requests"]
    for stop in stops:
        answer = ours.PromptResponse(stop_reason=stop)
        sent_as_result(sdk.PromptResponse, answer.to_wire(), normalised=False)


def test_what_the_sdks_client_sends_reads_into_our_models() -> None:
    blocks: list[Any] = [
        sdk.TextContentBlock(type="text", text="hi"),
        sdk.ImageContentBlock(type="image", data="AAAA", mime_type="image/png"),
        sdk.ResourceContentBlock(type="resource_link", name="a", uri="file:///a.py"),
        sdk.EmbeddedResourceContentBlock(
            type="resource",
            resource=sdk.TextResourceContents(uri="file:///b.py", text="b = 1"),
        ),
        sdk.EmbeddedResourceContentBlock(
            type="resource", resource=sdk.BlobResourceContents(uri="file:///c", blob="AA")
        ),
    ]
    prompt = serialize_params(sdk.PromptRequest(session_id="s", prompt=blocks, field_meta={"k": 1}))
    read = ours.PromptRequest.model_validate(prompt)
    assert [type(b).__name__ for b in read.prompt] == [type(b).__name__ for b in blocks]
    assert read.to_wire() == prompt and read.field_meta == {"k": 1}
    servers: list[Any] = [
        sdk.McpServerStdio(
            name="s", command="c", args=["a"], env=[sdk.EnvVariable(name="K", value="V")]
        ),
        sdk.HttpMcpServer(type="http", name="h", url="http://x", headers=[]),
        sdk.SseMcpServer(type="sse", name="e", url="http://y", headers=[]),
    ]
    new = serialize_params(
        sdk.NewSessionRequest(
            cwd="/ws", mcp_servers=servers, field_meta={"agentls": {"worktree": {}}}
        )
    )
    assert ours.NewSessionRequest.model_validate(new).to_wire() == new
    caps = sdk.ClientCapabilities(
        fs=sdk.FileSystemCapabilities(read_text_file=True, write_text_file=False), terminal=True
    )
    init = ours.InitializeRequest.model_validate(
        serialize_params(sdk.InitializeRequest(protocol_version=1, client_capabilities=caps))
    )
    capabilities = init.client_capabilities
    assert capabilities is not None and capabilities.terminal is True
    assert capabilities.fs is not None and capabilities.fs.read_text_file is True
    assert capabilities.fs.write_text_file is False
    allowed = sdk.RequestPermissionResponse(
        outcome=sdk.AllowedOutcome(outcome="selected", option_id="allow_once")
    )
    answer = ours.RequestPermissionResponse.model_validate(serialize_params(allowed))
    assert isinstance(answer.outcome, ours.AllowedOutcome)
    assert answer.outcome.option_id == "allow_once"
    cancelled = sdk.RequestPermissionResponse(outcome=sdk.DeniedOutcome(outcome="cancelled"))
    answer = ours.RequestPermissionResponse.model_validate(serialize_params(cancelled))
    assert isinstance(answer.outcome, ours.DeniedOutcome)
