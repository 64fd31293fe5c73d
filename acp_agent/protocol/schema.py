"""The ACP messages agentls sends and reads, as small pydantic models (camelCase on the
wire, ``_meta`` where the protocol has it).

Only what ``acp_agent`` uses. Outgoing messages are dumped without their None fields,
their fields declared in the order of the protocol's schema (the SDK's), so the JSON is
the SDK's to the key order. Incoming messages ignore keys they do not know (newer
clients send more), like the SDK's models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from agentls.agent.wire_model import WireModel

PROTOCOL_VERSION = 1

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
ToolCallStatus = Literal["pending", "in_progress", "completed", "failed"]
PlanEntryStatus = Literal["pending", "in_progress", "completed"]
PlanEntryPriority = Literal["high", "medium", "low"]
PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
Meta = Annotated[dict[str, Any] | None, Field(alias="_meta")]


class AcpModel(WireModel):
    """A message of ACP: camelCase on the wire, like every protocol message of agentls,
    but unknown keys ignored (newer clients send more), as the SDK's models do."""

    model_config = ConfigDict(extra="ignore")


# -- content ------------------------------------------------------------------------------
class TextContentBlock(AcpModel):
    text: str
    field_meta: Meta = None
    type: Literal["text"] = "text"


class ImageContentBlock(AcpModel):
    data: str
    mime_type: str
    uri: str | None = None
    field_meta: Meta = None
    type: Literal["image"] = "image"


class AudioContentBlock(AcpModel):
    data: str
    mime_type: str
    field_meta: Meta = None
    type: Literal["audio"] = "audio"


class ResourceContentBlock(AcpModel):
    """A link to a resource (``resource_link``): a file of the workspace, a URL."""

    description: str | None = None
    mime_type: str | None = None
    name: str
    size: int | None = None
    title: str | None = None
    uri: str
    field_meta: Meta = None
    type: Literal["resource_link"] = "resource_link"


class TextResourceContents(AcpModel):
    mime_type: str | None = None
    text: str
    uri: str
    field_meta: Meta = None


class BlobResourceContents(AcpModel):
    blob: str
    mime_type: str | None = None
    uri: str
    field_meta: Meta = None


class EmbeddedResourceContentBlock(AcpModel):
    resource: TextResourceContents | BlobResourceContents
    field_meta: Meta = None
    type: Literal["resource"] = "resource"


ContentBlock = Annotated[
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock,
    Field(discriminator="type"),
]


# -- tool calls ---------------------------------------------------------------------------
class ContentToolCallContent(AcpModel):
    content: ContentBlock
    field_meta: Meta = None
    type: Literal["content"] = "content"


class FileEditToolCallContent(AcpModel):
    """A diff: ``old_text`` None for a new file."""

    path: str
    old_text: str | None = None
    new_text: str
    field_meta: Meta = None
    type: Literal["diff"] = "diff"


ToolCallContent = Annotated[
    ContentToolCallContent | FileEditToolCallContent, Field(discriminator="type")
]


class ToolCallLocation(AcpModel):
    path: str
    line: int | None = None
    field_meta: Meta = None


class ToolCallStart(AcpModel):
    tool_call_id: str
    title: str
    kind: ToolKind | None = None
    status: ToolCallStatus | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any | None = None
    raw_output: Any | None = None
    field_meta: Meta = None
    session_update: Literal["tool_call"] = "tool_call"


class ToolCallUpdate(AcpModel):
    """A tool call as a permission question shows it."""

    tool_call_id: str
    kind: ToolKind | None = None
    status: ToolCallStatus | None = None
    title: str | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any | None = None
    raw_output: Any | None = None
    field_meta: Meta = None


class ToolCallProgress(ToolCallUpdate):
    session_update: Literal["tool_call_update"] = "tool_call_update"


# -- session updates ----------------------------------------------------------------------
class AgentMessageChunk(AcpModel):
    content: ContentBlock
    message_id: str | None = None
    field_meta: Meta = None
    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"


class AgentThoughtChunk(AcpModel):
    content: ContentBlock
    message_id: str | None = None
    field_meta: Meta = None
    session_update: Literal["agent_thought_chunk"] = "agent_thought_chunk"


class UserMessageChunk(AcpModel):
    content: ContentBlock
    message_id: str | None = None
    field_meta: Meta = None
    session_update: Literal["user_message_chunk"] = "user_message_chunk"


class PlanEntry(AcpModel):
    content: str
    priority: PlanEntryPriority
    status: PlanEntryStatus
    field_meta: Meta = None


class AgentPlanUpdate(AcpModel):
    entries: list[PlanEntry]
    field_meta: Meta = None
    session_update: Literal["plan"] = "plan"


class UsageUpdate(AcpModel):
    """How much of the context window the session uses."""

    used: int
    size: int
    field_meta: Meta = None
    session_update: Literal["usage_update"] = "usage_update"


class UnstructuredCommandInput(AcpModel):
    hint: str
    field_meta: Meta = None


class AvailableCommand(AcpModel):
    name: str
    description: str
    input: UnstructuredCommandInput | None = None
    field_meta: Meta = None


class AvailableCommandsUpdate(AcpModel):
    available_commands: list[AvailableCommand]
    field_meta: Meta = None
    session_update: Literal["available_commands_update"] = "available_commands_update"


SessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AvailableCommandsUpdate
    | UsageUpdate
)


# -- permissions --------------------------------------------------------------------------
class PermissionOption(AcpModel):
    option_id: str
    name: str
    kind: PermissionOptionKind
    field_meta: Meta = None


class AllowedOutcome(AcpModel):
    option_id: str
    field_meta: Meta = None
    outcome: Literal["selected"] = "selected"


class DeniedOutcome(AcpModel):
    outcome: Literal["cancelled"] = "cancelled"


class RequestPermissionResponse(AcpModel):
    outcome: Annotated[AllowedOutcome | DeniedOutcome, Field(discriminator="outcome")]
    field_meta: Meta = None


# -- the client's files and terminals -----------------------------------------------------
class ReadTextFileResponse(AcpModel):
    content: str
    field_meta: Meta = None


class CreateTerminalResponse(AcpModel):
    terminal_id: str
    field_meta: Meta = None


class TerminalExitStatus(AcpModel):
    exit_code: int | None = None
    signal: str | None = None
    field_meta: Meta = None


class TerminalOutputResponse(AcpModel):
    output: str
    truncated: bool
    exit_status: TerminalExitStatus | None = None
    field_meta: Meta = None


class WaitForTerminalExitResponse(AcpModel):
    exit_code: int | None = None
    signal: str | None = None
    field_meta: Meta = None


# -- initialize ---------------------------------------------------------------------------
class FileSystemCapabilities(AcpModel):
    read_text_file: bool | None = False
    write_text_file: bool | None = False
    field_meta: Meta = None


class ClientCapabilities(AcpModel):
    """What the client offers: its files, its terminals (the rest agentls does not use)."""

    fs: FileSystemCapabilities | None = Field(default_factory=FileSystemCapabilities)
    terminal: bool | None = False
    field_meta: Meta = None


class Implementation(AcpModel):
    name: str
    title: str | None = None
    version: str
    field_meta: Meta = None


class PromptCapabilities(AcpModel):
    image: bool | None = None
    audio: bool | None = None
    embedded_context: bool | None = None
    field_meta: Meta = None


class AgentCapabilities(AcpModel):
    load_session: bool | None = None
    prompt_capabilities: PromptCapabilities | None = None
    field_meta: Meta = None


class InitializeRequest(AcpModel):
    protocol_version: int
    client_capabilities: ClientCapabilities | None = Field(default_factory=ClientCapabilities)
    client_info: Implementation | None = None
    field_meta: Meta = None


class InitializeResponse(AcpModel):
    protocol_version: int
    agent_capabilities: AgentCapabilities | None = None
    agent_info: Implementation | None = None
    field_meta: Meta = None


# -- sessions -----------------------------------------------------------------------------
class EnvVariable(AcpModel):
    name: str
    value: str
    field_meta: Meta = None


class HttpHeader(AcpModel):
    name: str
    value: str
    field_meta: Meta = None


class McpServerStdio(AcpModel):
    name: str
    command: str
    args: list[str]
    env: list[EnvVariable]
    field_meta: Meta = None


class McpServerHttp(AcpModel):
    """An MCP server over HTTP or server-sent events (``type``)."""

    name: str
    url: str
    headers: list[HttpHeader]
    field_meta: Meta = None
    type: Literal["http", "sse"]


class McpServerAcp(AcpModel):
    """An MCP server the client itself serves over ACP (agentls does not use these)."""

    name: str
    server_id: str
    field_meta: Meta = None
    type: Literal["acp"]


McpServer = McpServerHttp | McpServerAcp | McpServerStdio


class NewSessionRequest(AcpModel):
    cwd: str
    additional_directories: list[str] | None = None
    mcp_servers: list[McpServer]
    field_meta: Meta = None


class LoadSessionRequest(AcpModel):
    mcp_servers: list[McpServer]
    cwd: str
    additional_directories: list[str] | None = None
    session_id: str
    field_meta: Meta = None


class SessionMode(AcpModel):
    id: str
    name: str
    description: str | None = None
    field_meta: Meta = None


class SessionModeState(AcpModel):
    current_mode_id: str
    available_modes: list[SessionMode]
    field_meta: Meta = None


class SessionConfigSelectOption(AcpModel):
    value: str
    name: str
    description: str | None = None
    field_meta: Meta = None


class SessionConfigOptionSelect(AcpModel):
    current_value: str
    options: list[SessionConfigSelectOption]
    id: str
    name: str
    description: str | None = None
    category: str | None = None
    field_meta: Meta = None
    type: Literal["select"] = "select"


class NewSessionResponse(AcpModel):
    session_id: str
    modes: SessionModeState | None = None
    config_options: list[SessionConfigOptionSelect] | None = None
    field_meta: Meta = None


class LoadSessionResponse(AcpModel):
    modes: SessionModeState | None = None
    config_options: list[SessionConfigOptionSelect] | None = None
    field_meta: Meta = None


class SetSessionModeRequest(AcpModel):
    session_id: str
    mode_id: str
    field_meta: Meta = None


class SetSessionModeResponse(AcpModel):
    field_meta: Meta = None


class SetSessionConfigOptionSelectRequest(AcpModel):
    session_id: str
    config_id: str
    field_meta: Meta = None
    value: str


class SetSessionConfigOptionBooleanRequest(AcpModel):
    """A boolean option's value: the params say ``type: boolean``."""

    session_id: str
    config_id: str
    field_meta: Meta = None
    value: bool
    type: Literal["boolean"]


class SetSessionConfigOptionResponse(AcpModel):
    config_options: list[SessionConfigOptionSelect]
    field_meta: Meta = None


class PromptRequest(AcpModel):
    session_id: str
    prompt: list[ContentBlock]
    field_meta: Meta = None


class PromptResponse(AcpModel):
    stop_reason: StopReason
    field_meta: Meta = None


class CancelNotification(AcpModel):
    session_id: str
    field_meta: Meta = None


class AuthenticateRequest(AcpModel):
    method_id: str
    field_meta: Meta = None
