"""Attachments through each front end: the CLI's --attach and --image, agent/run's
`attachments` over stdio, an ACP editor's resource links and image blocks."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from acp import image_block, resource_link_block, text_block
from agentls_e2e import LspFactory, plain, run_cli
from test_acp import EditorClient, acp_agent

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

pytestmark = pytest.mark.timeout(180)

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64).decode()


def test_the_cli_attaches_lines_and_refuses_a_missing_image(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "app.py").write_text("first = 1\nsecond = 2\nthird = 3\n")
    scripted.add("at1", text("seen"))
    model = ["--model", "openai/at1", "--api-base", scripted.api_base]
    done = run_cli(tmp_path, "run", "explain", "--attach", "app.py:2", *model)
    assert done.returncode == 0, done.stderr
    sent = str(scripted.requests_for("at1")[0].messages[-1]["content"])
    assert "Attached: app.py:2-2" in sent and "second = 2" in sent and "third" not in sent
    missing = run_cli(tmp_path, "run", "explain", "--image", "nope.png", *model)
    assert missing.returncode == 1 and "--image nope.png" in missing.stderr
    outside = run_cli(tmp_path, "run", "explain", "--attach", "/etc/passwd", *model)
    assert outside.returncode != 0 and "attached file /etc/passwd" in outside.stdout
    assert len(scripted.requests_for("at1")) == 1


async def test_agent_run_takes_attachments_and_names_a_bad_one(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add("alice", text("seen"))
    client = await lsp()
    result = plain(
        await client.run(
            prompt="explain",
            runId="a1",
            attachments=[{"kind": "file", "path": "src/app.py", "startLine": 1, "endLine": 1}],
        )
    )
    assert result["status"] == "success"
    assert "def greet(name):" in str(scripted.requests_for("alice")[0].messages[-1]["content"])
    bad = plain(
        await client.run(
            prompt="explain",
            runId="a2",
            attachments=[{"kind": "image", "path": "s.png", "data": PNG, "mimeType": "image/png"}],
        )
    )
    assert bad["status"] == "failed" and "s.png: the model cannot take images" in bad["output"]
    assert len(scripted.requests_for("alice")) == 1


async def test_an_acp_editors_links_and_images_are_attachments(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nShip on Friday.\n")
    scripted.add("acp-at", text("Friday."))
    client = EditorClient()
    async with acp_agent(tmp_path, scripted, "acp-at", client) as conn:
        init = await conn.initialize(protocol_version=1)
        assert init.agent_capabilities.prompt_capabilities.image is True
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        link = resource_link_block("notes.md", (tmp_path / "notes.md").as_uri())
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("when?"), link]
        )
        assert answer.stop_reason == "end_turn"
        await conn.prompt(
            session_id=session.session_id,
            prompt=[text_block("and this?"), image_block(PNG, "image/png")],
        )
    sent = str(scripted.requests_for("acp-at")[0].messages[-1]["content"])
    assert "Ship on Friday." in sent
    assert "the model cannot take images" in client.agent_text()
    assert len(scripted.requests_for("acp-at")) == 1
