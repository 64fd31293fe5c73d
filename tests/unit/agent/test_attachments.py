"""Attachments to a prompt: each kind reaches the model, each bad one fails the run before
any model call with a message naming it (the scripted model server over litellm)."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agentls.agent.config.models import AppConfig
from agentls.agent.contract import Attachment
from agentls.agent.folder.folder import FolderEngine
from agentls.agent.folder.media import TERMINAL
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.prompts.attachments import sees_images
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.workspace import DiskFileAccess

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5b0000000049454e44ae426082"
    )
).decode()


def config_for(ws: Path, scripted: ScriptedModelServer, model: str, **llm: Any) -> AppConfig:
    return AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": f"openai/{model}", "api_base": scripted.api_base, **llm},
        }
    )


async def run(ws: Path, config: AppConfig, *attachments: dict[str, Any]) -> Any:
    return await run_agent(
        RunRequest(
            prompt="look at this",
            attachments=[Attachment.model_validate(a) for a in attachments],
        ),
        FrontEnd(DiskFileAccess(ws), DenyingApprover("t")),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def first_user(scripted: ScriptedModelServer, model: str) -> Any:
    return scripted.requests_for(model)[0].messages[-1]["content"]


async def test_a_file_and_a_range_join_the_prompt_under_their_names(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 31)))
    scripted.add("a1", text("seen"))
    outcome = await run(
        tmp_path,
        config_for(tmp_path, scripted, "a1"),
        {"kind": "file", "path": "app.py", "startLine": 10, "endLine": 12},
    )
    assert outcome.state.status == "success"
    sent = str(first_user(scripted, "a1"))
    assert sent.startswith("look at this") and "Attached: app.py:10-12" in sent
    assert "line 10\nline 11\nline 12" in sent and "line 13" not in sent


async def test_a_large_file_becomes_its_outline_with_a_note(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    body = "".join(f"def handler_{n}(event):\n    return {n} * 2\n\n" for n in range(3000))
    (tmp_path / "big.py").write_text(body)
    scripted.add("a2", text("seen"))
    await run(tmp_path, config_for(tmp_path, scripted, "a2"), {"kind": "file", "path": "big.py"})
    sent = str(first_user(scripted, "a2"))
    assert "outline" in sent and "1: def handler_0(event):" in sent
    assert "return 5 * 2" not in sent and len(sent) < 60_000


async def test_a_symbol_is_attached_with_its_definition(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "shop.py").write_text(
        "def total_price(items):\n    return sum(i.price for i in items)\n"
    )
    scripted.add("a5", text("seen"))
    config = config_for(tmp_path, scripted, "a5")
    engine = FolderEngine(TERMINAL)
    await engine.run_with_own_tools(
        RunRequest(prompt="explain", attachments=[Attachment(kind="symbol", name="total_price")]),
        FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("t")),
        config=config,
        warn=lambda message: None,
    )
    await engine.aclose()
    sent = str(first_user(scripted, "a5"))
    assert "the definition of total_price" in sent and "shop.py:1" in sent
    assert "return sum(i.price for i in items)" in sent


def committed(root: Path) -> None:
    """A repository whose a.txt says "old" in its one commit."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "a.txt").write_text("old\n")
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
        cwd=root,
        check=True,
    )


async def test_the_uncommitted_changes_are_attached_as_a_diff(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    committed(tmp_path)
    (tmp_path / "a.txt").write_text("new\n")
    scripted.add("a3", text("seen"))
    await run(tmp_path, config_for(tmp_path, scripted, "a3"), {"kind": "changes"})
    sent = str(first_user(scripted, "a3"))
    assert "-old" in sent and "+new" in sent


async def test_an_image_goes_as_an_image_part_to_a_model_that_sees(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("a4", text("a red dot"))
    image = {"kind": "image", "path": "shot.png", "data": PNG, "mimeType": "image/png"}
    await run(tmp_path, config_for(tmp_path, scripted, "a4", vision=True), image)
    parts = first_user(scripted, "a4")
    assert parts[0] == {"type": "text", "text": "look at this"}
    assert parts[1]["type"] == "image_url"
    assert parts[1]["image_url"]["url"] == f"data:image/png;base64,{PNG}"


@pytest.mark.parametrize(
    ("attachment", "llm", "said"),
    [
        ({"kind": "file", "path": "missing.py"}, {}, "attached file missing.py"),
        ({"kind": "file", "path": "blob.bin"}, {}, "attached file blob.bin"),
        ({"kind": "file", "path": "../outside.txt"}, {}, "attached file ../outside.txt"),
        (
            {"kind": "file", "path": "app.py", "startLine": 50, "endLine": 60},
            {},
            "lines 50-60 are not in the file",
        ),
        ({"kind": "symbol", "name": "nowhere_defined"}, {}, "nowhere_defined"),
        (
            {"kind": "image", "path": "s.png", "data": PNG, "mimeType": "image/png"},
            {"vision": False},
            "s.png: the model cannot take images",
        ),
        (
            {"kind": "image", "path": "s.tiff", "data": PNG, "mimeType": "image/tiff"},
            {"vision": True},
            "image/tiff are not taken",
        ),
        (
            {"kind": "image", "path": "s.png", "data": "not base64!", "mimeType": "image/png"},
            {"vision": True},
            "not base64",
        ),
        (
            {
                "kind": "image",
                "path": "huge.png",
                "data": base64.b64encode(b"x" * (6 * 1024 * 1024)).decode(),
                "mimeType": "image/png",
            },
            {"vision": True},
            "huge.png: the image is 6144 KB",
        ),
    ],
)
async def test_a_bad_attachment_fails_the_run_before_any_model_call(
    tmp_path: Path,
    scripted: ScriptedModelServer,
    attachment: dict[str, Any],
    llm: dict[str, Any],
    said: str,
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("x = 1\n")
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (tmp_path / "outside.txt").write_text("secret\n")
    outcome = await run(ws, config_for(ws, scripted, "bad", **llm), attachment)
    assert outcome.state.status == "failed"
    assert said in str(outcome.state.final_output)
    assert not scripted.requests_for("bad")


def test_an_incomplete_attachment_is_refused_at_the_boundary() -> None:
    with pytest.raises(ValidationError, match="a file attachment needs path"):
        Attachment.model_validate({"kind": "file"})
    with pytest.raises(ValidationError, match="needs data and mime_type"):
        Attachment.model_validate({"kind": "image"})


VISION_MODELS = [
    "gpt-4o",
    "openai/gpt-4o",
    "gpt-4.1-mini",
    "o3",
    "litellm_proxy/gpt-4o",
    "gpt-3.5-turbo",
    "openai/gpt-3.5-turbo",
    "anthropic/claude-3-5-sonnet-20241022",
    "openai/bench",
    "ollama/llava",
    "openrouter/openai/gpt-4o",
]


@pytest.mark.parametrize("model", VISION_MODELS)
def test_whether_a_model_sees_images_is_litellms_answer(model: str) -> None:
    from agentls.agent.llm._litellm import import_litellm_sync

    assert sees_images(model, None) is bool(import_litellm_sync().supports_vision(model=model))
    assert sees_images(model, True) is True and sees_images(model, False) is False


def test_asking_whether_a_model_sees_images_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "from agentls.agent.prompts.attachments import sees_images\n"
        "print(sees_images('openai/gpt-4o', None), 'litellm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False"]
