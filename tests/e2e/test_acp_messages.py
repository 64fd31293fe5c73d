"""An ACP editor prompts while a turn runs: the prompt joins the turn (the model reads it
before its next call) and both prompts end with that turn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import text_block
from test_acp import EditorClient, acp_agent

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

pytestmark = pytest.mark.timeout(180)


async def test_a_prompt_sent_while_a_turn_runs_joins_it(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "acp-msg",
        text("Working on it. " * 40, chunk_size=2, chunk_delay=0.03),
        text("Done, with tests."),
    )
    client = EditorClient()
    async with acp_agent(tmp_path, scripted, "acp-msg", client) as conn:
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        first = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("do the task")])
        )
        await asyncio.wait_for(client.talking.wait(), 60)
        second = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("also add tests")]
        )
        assert second.stop_reason == "end_turn"
        assert (await first).stop_reason == "end_turn"
    requests = scripted.requests_for("acp-msg")
    assert len(requests) == 2
    assert "also add tests" in str(requests[1].messages[-1]["content"])
    assert "Done, with tests." in client.agent_text()
