"""The client's methods as the agent calls them: ``session/update`` notifications, and
the requests (a permission, the editor's files and terminals) whose answers it awaits.

Params are sent as the SDK sent them (camelCase, None fields left out); each answer is
validated, so a client's bad answer fails the call that waited for it.
"""

from __future__ import annotations

from typing import Any, Protocol

from agentls.acp_agent.protocol.connection import Connection
from agentls.acp_agent.protocol.schema import (
    CreateTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SessionUpdate,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
)


class Client(Protocol):
    """What the agent asks of the ACP client (a test may stand in a fake of the part it uses)."""

    async def session_update(self, session_id: str, update: SessionUpdate) -> None: ...

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...

    async def read_text_file(self, session_id: str, path: str) -> ReadTextFileResponse: ...

    async def write_text_file(self, session_id: str, path: str, content: str) -> None: ...

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> CreateTerminalResponse: ...

    async def terminal_output(
        self, session_id: str, terminal_id: str
    ) -> TerminalOutputResponse: ...

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str
    ) -> WaitForTerminalExitResponse: ...

    async def kill_terminal(self, session_id: str, terminal_id: str) -> None: ...

    async def release_terminal(self, session_id: str, terminal_id: str) -> None: ...


def _without_none(params: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in params.items() if value is not None}


class ClientConnection:
    """The client at the other end of ``connection``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    async def session_update(self, session_id: str, update: SessionUpdate) -> None:
        params = {"sessionId": session_id, "update": update.to_wire()}
        await self.connection.send_notification("session/update", params)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        params = {
            "sessionId": session_id,
            "toolCall": tool_call.to_wire(),
            "options": [option.to_wire() for option in options],
        }
        answer = await self.connection.send_request("session/request_permission", params)
        return RequestPermissionResponse.model_validate(answer)

    async def read_text_file(self, session_id: str, path: str) -> ReadTextFileResponse:
        params = {"sessionId": session_id, "path": path}
        answer = await self.connection.send_request("fs/read_text_file", params)
        return ReadTextFileResponse.model_validate(answer)

    async def write_text_file(self, session_id: str, path: str, content: str) -> None:
        params = {"sessionId": session_id, "path": path, "content": content}
        await self.connection.send_request("fs/write_text_file", params)

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> CreateTerminalResponse:
        params = _without_none(
            {
                "sessionId": session_id,
                "command": command,
                "args": args,
                "cwd": cwd,
                "outputByteLimit": output_byte_limit,
            }
        )
        answer = await self.connection.send_request("terminal/create", params)
        return CreateTerminalResponse.model_validate(answer)

    async def terminal_output(self, session_id: str, terminal_id: str) -> TerminalOutputResponse:
        answer = await self.connection.send_request(
            "terminal/output", {"sessionId": session_id, "terminalId": terminal_id}
        )
        return TerminalOutputResponse.model_validate(answer)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str
    ) -> WaitForTerminalExitResponse:
        answer = await self.connection.send_request(
            "terminal/wait_for_exit", {"sessionId": session_id, "terminalId": terminal_id}
        )
        return WaitForTerminalExitResponse.model_validate(answer)

    async def kill_terminal(self, session_id: str, terminal_id: str) -> None:
        await self.connection.send_request(
            "terminal/kill", {"sessionId": session_id, "terminalId": terminal_id}
        )

    async def release_terminal(self, session_id: str, terminal_id: str) -> None:
        await self.connection.send_request(
            "terminal/release", {"sessionId": session_id, "terminalId": terminal_id}
        )
