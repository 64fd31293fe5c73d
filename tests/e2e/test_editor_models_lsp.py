"""The editor's models through the real server over stdio: the pytest-lsp client plays
VS Code, answering ``agent/modelRequest`` from a script (parts as ``agent/modelPart``
notifications, then the answer), ``agent/countTokens`` and ``agent/editorModels``. And
the terminal, where no editor lends its models."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentls_e2e import VSCODE, AgentClient, LspFactory, plain, run_cli

#: VS Code as the extension declares it, lending its language models.
LENDING = copy.deepcopy(VSCODE)
LENDING.experimental = {"agentls": {"askUser": True, "editorModels": True}}

MODEL = "editor/test-vendor/scripted-1"
OPTIONS = {"llm": {"model": MODEL}}


@dataclass
class Turn:
    """One answer: its parts in order (``{"text": ...}`` or ``{"toolCall": ...}``);
    ``hang``: the answer never ends (until cancelled); ``error``: it fails so."""

    parts: list[dict[str, Any]]
    hang: bool = False
    error: str | None = None


@dataclass
class ScriptedEditor:
    turns: list[Turn] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    counts: int = 0
    streaming: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)


def play_editor(client: AgentClient) -> ScriptedEditor:
    editor = ScriptedEditor()

    @client.feature("agent/modelRequest")
    async def model_request(ls: AgentClient, params: Any) -> dict[str, Any]:
        request = plain(params)
        editor.requests.append(request)
        turn = editor.turns.pop(0)
        try:
            for part in turn.parts:
                ls.protocol.notify("agent/modelPart", {"token": request["token"], **part})
                await asyncio.sleep(0)
            if turn.hang:
                editor.streaming.set()
                await editor.release.wait()
        except asyncio.CancelledError:
            editor.cancelled.append(request["token"])
            raise
        if turn.error is not None:
            raise RuntimeError(turn.error)
        return {"finishReason": "tool_calls" if turn.parts[-1].get("toolCall") else "stop"}

    @client.feature("agent/countTokens")
    def count_tokens(ls: AgentClient, params: Any) -> dict[str, Any]:
        editor.counts += 1
        return {"counts": [7] * len(plain(params)["messages"])}

    @client.feature("agent/editorModels")
    def editor_models(ls: AgentClient, params: Any) -> dict[str, Any]:
        return {
            "models": [
                {"vendor": "test-vendor", "id": "scripted-1", "name": "Scripted One"},
            ]
        }

    return editor


async def test_a_run_on_the_editors_model_streams_and_edits_with_a_tool_call(
    lsp: LspFactory, workspace: Path
) -> None:
    client = await lsp(caps=LENDING, init_options=OPTIONS)
    editor = play_editor(client)
    call = {
        "id": "call-1",
        "name": "write_file",
        "arguments": {"path": "notes.md", "content": "hi\n"},
    }
    editor.turns = [
        Turn([{"text": "I will "}, {"text": "write it."}, {"toolCall": call}]),
        Turn([{"text": "Written."}]),
    ]
    result = plain(await client.run(prompt="write notes", runId="ed1"))

    assert result["status"] == "success", result
    assert (workspace / "notes.md").read_text() == "hi\n"
    assert "I will write it." in client.streamed("ed1")
    assert "Written." in client.streamed("ed1")
    first, second = editor.requests
    assert (first["vendor"], first["model"]) == ("test-vendor", "scripted-1")
    assert any(t["function"]["name"] == "write_file" for t in first["tools"])
    # The model hears its call and the tool's result, OpenAI-style.
    asked = [m for m in second["messages"] if m["role"] == "assistant" and m.get("tool_calls")]
    assert asked[-1]["tool_calls"][0]["id"] == "call-1"
    told = [m for m in second["messages"] if m["role"] == "tool"]
    assert told[-1]["tool_call_id"] == "call-1"
    assert editor.counts > 0  # the context is measured by the model's own counter


async def test_cancelling_the_run_cancels_the_editors_request_and_ping_answers_meanwhile(
    lsp: LspFactory,
) -> None:
    client = await lsp(caps=LENDING, init_options=OPTIONS)
    editor = play_editor(client)
    editor.turns = [Turn([{"text": "thinking it over\n"}], hang=True)]
    running = client.run(prompt="slow", runId="ed2")
    await asyncio.wait_for(editor.streaming.wait(), 60)
    await client.wait_for(lambda: "thinking" in client.streamed("ed2"), what="the streamed text")
    # The server's loop is free while the editor streams.
    pong = plain(await asyncio.wait_for(client.request("agent/ping", {}), 30))
    assert pong["runs"] == 1, pong

    await client.request("agent/cancel", {"runId": "ed2"})
    result = plain(await asyncio.wait_for(running, 60))
    assert result["status"] == "partial", result
    assert "cancelled" in result["output"]
    await client.wait_for(lambda: bool(editor.cancelled), what="the editor's cancel")
    assert editor.cancelled == [editor.requests[0]["token"]]


async def test_the_editors_refusal_fails_the_run_with_its_words(lsp: LspFactory) -> None:
    client = await lsp(caps=LENDING, init_options=OPTIONS)
    editor = play_editor(client)
    editor.turns = [Turn([{"text": "half"}], error="the user did not allow agentls to use it")]
    result = plain(await client.run(prompt="go", runId="ed3"))

    assert result["status"] == "failed", result
    assert "the user did not allow agentls to use it" in result["output"], result
    assert len(editor.requests) == 1  # never retried


async def test_a_client_that_lends_no_models_is_not_asked(lsp: LspFactory) -> None:
    client = await lsp(init_options=OPTIONS)  # VS Code-like, without editorModels
    editor = play_editor(client)
    result = plain(await client.run(prompt="go", runId="ed4"))

    assert result["status"] == "failed", result
    assert "only available in an editor that offers them" in result["output"], result
    assert editor.requests == []


def test_the_terminal_says_the_editors_models_need_an_editor(workspace: Path) -> None:
    done = run_cli(workspace, "run", "hello", "--model", MODEL)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "only available in an editor that offers them" in said, said
    assert "Traceback" not in said
