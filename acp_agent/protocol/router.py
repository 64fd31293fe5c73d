"""The agent's methods of ACP: each request's params validated, then answered by the
agent's method of that name; what agentls does not offer answers "Method not found".

The results are dumped as the SDK dumped them: the fields that are not None. A method
of the protocol the agent does not implement (``session/list``, the unstable
``session/close``, ``session/fork``, ``session/resume``) and every extension method
(``_name``) is not found; an extension notification is ignored, any other unknown
notification (``$/cancel_request``) is logged. The ``_meta`` of a request's params
goes to the agent's method as keyword arguments, as the SDK passes it.
"""

from __future__ import annotations

from typing import Any, Protocol

from agentls.acp_agent.protocol.connection import RequestError
from agentls.acp_agent.protocol.schema import (
    AcpModel,
    AuthenticateRequest,
    CancelNotification,
    ClientCapabilities,
    ContentBlock,
    Implementation,
    InitializeRequest,
    InitializeResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    McpServer,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    SetSessionConfigOptionBooleanRequest,
    SetSessionConfigOptionResponse,
    SetSessionConfigOptionSelectRequest,
    SetSessionModeRequest,
    SetSessionModeResponse,
)


class Agent(Protocol):
    """The methods of the protocol agentls implements (``AgentlsAcpAgent``)."""

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse: ...

    async def new_session(
        self, cwd: str, mcp_servers: list[McpServer] | None = None, **kwargs: Any
    ) -> NewSessionResponse: ...

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[McpServer] | None = None, **kwargs: Any
    ) -> LoadSessionResponse: ...

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse: ...

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse: ...

    async def prompt(
        self, session_id: str, prompt: list[ContentBlock], **kwargs: Any
    ) -> PromptResponse: ...

    async def cancel(self, session_id: str, **kwargs: Any) -> None: ...

    async def authenticate(self, method_id: str, **kwargs: Any) -> None: ...


def _meta(request: AcpModel) -> dict[str, Any]:
    meta = getattr(request, "field_meta", None)
    return dict(meta) if meta else {}


def _result(answer: AcpModel | None) -> dict[str, Any]:
    return {} if answer is None else answer.to_wire()


class AgentRouter:
    """The connection's handler: a method's name and params to the agent's answer."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def __call__(self, method: str, params: Any, is_notification: bool) -> Any:
        if is_notification:
            return await self._notified(method, params)
        agent = self.agent
        if method == "initialize":
            init = InitializeRequest.model_validate(params)
            return _result(
                await agent.initialize(
                    init.protocol_version, init.client_capabilities, init.client_info, **_meta(init)
                )
            )
        if method == "session/new":
            new = NewSessionRequest.model_validate(params)
            return _result(
                await agent.new_session(
                    new.cwd,
                    new.mcp_servers,
                    additional_directories=new.additional_directories,
                    **_meta(new),
                )
            )
        if method == "session/load":
            load = LoadSessionRequest.model_validate(params)
            return _result(
                await agent.load_session(
                    load.cwd,
                    load.session_id,
                    load.mcp_servers,
                    additional_directories=load.additional_directories,
                    **_meta(load),
                )
            )
        if method == "session/prompt":
            prompt = PromptRequest.model_validate(params)
            return _result(await agent.prompt(prompt.session_id, prompt.prompt, **_meta(prompt)))
        if method == "session/set_mode":
            mode = SetSessionModeRequest.model_validate(params)
            return _result(
                await agent.set_session_mode(mode.session_id, mode.mode_id, **_meta(mode))
            )
        if method == "session/set_config_option":
            option = _config_option_request(params)
            return _result(
                await agent.set_config_option(
                    option.config_id, option.session_id, option.value, **_meta(option)
                )
            )
        if method == "authenticate":
            auth = AuthenticateRequest.model_validate(params)
            await agent.authenticate(auth.method_id, **_meta(auth))
            return {}
        raise RequestError.method_not_found(method)

    async def _notified(self, method: str, params: Any) -> None:
        if method == "session/cancel":
            cancel = CancelNotification.model_validate(params)
            await self.agent.cancel(cancel.session_id, **_meta(cancel))
            return
        if isinstance(method, str) and method.startswith("_"):
            return  # an extension agentls does not know: nothing to do
        raise RequestError.method_not_found(method)


def _config_option_request(
    params: Any,
) -> SetSessionConfigOptionSelectRequest | SetSessionConfigOptionBooleanRequest:
    if isinstance(params, dict) and params.get("type") == "boolean":
        return SetSessionConfigOptionBooleanRequest.model_validate(params)
    return SetSessionConfigOptionSelectRequest.model_validate(params)
