"""A multi-root workspace over LSP: each folder its own trust, settings, instructions,
sessions and checkpoints; a run works in one folder, its tools confined to it; a file of
another folder is refused unless the user's config allows reading across folders; folders
added and removed while the server runs are loaded, and dropped with their runs ended."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import NEOVIM, AgentClient, LspFactory, git, llm_options, plain
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

SLOW = text("".join(f"tok{i} " for i in range(400)), chunk_size=4, chunk_delay=0.01)

ALPHA_YAML = """\
agents:
  alpha-helper:
    description: The alpha folder's own agent.
    system_prompt: You are ALPHA-HELPER.
"""


def make_folder(root: Path, rules: str, app: str) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(app)
    (root / "AGENTS.md").write_text(f"# Rules\n{rules}\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def alpha(tmp_path: Path) -> Path:
    root = make_folder(tmp_path / "alpha", "ALPHA-RULES apply here.", "ALPHA = 1\n")
    (root / ".agentls.yaml").write_text(ALPHA_YAML)
    return root


#: What an untrusted folder's file loses (its logging), which the folder's notice names.
BETA_YAML = "logging:\n  level: DEBUG\n"


@pytest.fixture
def beta(tmp_path: Path) -> Path:
    root = make_folder(tmp_path / "beta", "BETA-RULES apply here.", "BETA_SECRET_TEXT = 2\n")
    (root / ".agentls.yaml").write_text(BETA_YAML)
    return root


def uri(path: Path) -> str:
    return from_fs_path(str(path)) or ""


def system_of(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages if m["role"] == "system")


def all_text(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages)


async def invalid(client: AgentClient, method: str, params: dict[str, Any]) -> str:
    """The message of the error ``method`` answers with."""
    with pytest.raises(JsonRpcException) as raised:
        await client.request(method, params)
    return str(raised.value)


def change_folders(
    client: AgentClient, *, added: Sequence[Path] = (), removed: Sequence[Path] = ()
) -> None:
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=uri(p), name=p.name) for p in added],
                removed=[types.WorkspaceFolder(uri=uri(p), name=p.name) for p in removed],
            )
        )
    )


async def test_two_folders_keep_their_own_trust_settings_instructions_and_sessions(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    alpha: Path,
    beta: Path,
    trust_folder: Callable[..., None],
) -> None:
    trust_folder(alpha)  # beta stays untrusted
    client = await lsp(caps=NEOVIM, folders=[alpha, beta])
    assert client.init_result is not None
    workspace_caps = client.init_result.capabilities.workspace
    assert workspace_caps is not None and workspace_caps.workspace_folders is not None
    assert workspace_caps.workspace_folders.supported
    assert workspace_caps.workspace_folders.change_notifications

    # trust: the untrusted folder is named at start, the trusted one is not
    await client.wait_for(
        lambda: any("not a trusted folder" in m.message for m in client.messages),
        what="the untrusted folder's warning",
    )
    untrusted = [m.message for m in client.messages if "not a trusted folder" in m.message]
    assert len(untrusted) == 1 and str(beta) in untrusted[0]
    assert not any(str(alpha) + " " in m for m in untrusted)

    # settings: alpha's .agentls.yaml (trusted) adds an agent; beta has none of it
    def agent_names(result: Any) -> set[str]:
        return {a["name"] for a in plain(result)["agents"]}

    alpha_agents = agent_names(await client.request("agent/agents", {"folder": uri(alpha)}))
    beta_agents = agent_names(await client.request("agent/agents", {"folder": uri(beta)}))
    default_agents = agent_names(await client.request("agent/agents", {}))
    assert "alpha-helper" in alpha_agents and "alpha-helper" not in beta_agents
    assert default_agents == alpha_agents  # the first folder is the default

    # a run in beta: its instructions, its tools confined to it (alpha is outside), an
    # edit of its own
    scripted.add(
        "alice",
        tool_call("read_file", {"path": "../alpha/src/app.py"}),
        tool_call("write_file", {"path": "notes.txt", "content": "beta notes\n"}),
        text("done in beta"),
    )
    result = plain(
        await client.run(
            prompt="work", runId="b1", sessionId="sb", folder=uri(beta), confirmMode="yolo"
        )
    )
    assert result["status"] == "success", result
    assert result["folder"] == uri(beta)
    first, second, _ = scripted.requests_for("alice")[-3:]
    assert "BETA-RULES" in system_of(first) and "ALPHA-RULES" not in system_of(first)
    assert "escapes the workspace" in all_text(second)
    assert "ALPHA = 1" not in all_text(second)
    assert (beta / "notes.txt").read_text() == "beta notes\n"
    assert not (alpha / "notes.txt").exists()

    # a run in alpha, found by its active file (no folder named), with alpha's own agent
    scripted.add("alice", text("done in alpha"))
    result = plain(
        await client.run(
            prompt="work",
            runId="a1",
            sessionId="sa",
            agent="alpha-helper",
            activeFile=str(alpha / "src" / "app.py"),
        )
    )
    assert result["status"] == "success", result
    assert result["folder"] == uri(alpha)
    request = scripted.requests_for("alice")[-1]
    assert "ALPHA-HELPER" in system_of(request) and "ALPHA-RULES" in system_of(request)
    assert "BETA-RULES" not in system_of(request)
    # beta knows no such agent
    message = await invalid(
        client, "agent/run", {"prompt": "x", "agent": "alpha-helper", "folder": uri(beta)}
    )
    assert "alpha-helper" in message

    # sessions and checkpoints are each folder's own, on its disk
    def session_ids(result: Any) -> list[str]:
        return [s["sessionId"] for s in plain(result)["sessions"]]

    assert session_ids(await client.request("agent/sessions", {"folder": uri(alpha)})) == ["sa"]
    assert session_ids(await client.request("agent/sessions", {"folder": uri(beta)})) == ["sb"]
    assert session_ids(await client.request("agent/sessions", {})) == ["sa"]
    assert (beta / ".agentls" / "sessions").is_dir() and (alpha / ".agentls" / "sessions").is_dir()
    beta_runs = plain(await client.request("agent/checkpoints", {"folder": uri(beta)}))["runs"]
    assert [r["runId"] for r in beta_runs] == ["b1"]
    alpha_runs = plain(await client.request("agent/checkpoints", {"folder": uri(alpha)}))["runs"]
    assert "b1" not in [r["runId"] for r in alpha_runs]
    session = plain(await client.request("agent/session", {"sessionId": "sb", "folder": uri(beta)}))
    assert session["sessionId"] == "sb"
    assert "no session" in await invalid(
        client, "agent/session", {"sessionId": "sb", "folder": uri(alpha)}
    )

    # a folder that is none of the workspace's is refused, naming it and the folders
    nowhere = uri(alpha.parent / "nowhere")
    message = await invalid(client, "agent/run", {"prompt": "x", "folder": nowhere})
    assert nowhere in message and uri(alpha) in message and uri(beta) in message
    assert nowhere in await invalid(client, "agent/sessions", {"folder": nowhere})


async def test_a_file_of_another_folder_is_refused_even_when_a_workspace_file_allows_it(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    alpha: Path,
    beta: Path,
    trust_folder: Callable[..., None],
) -> None:
    # A trusted workspace's own file cannot open the other folders to its runs.
    (alpha / ".agentls.yaml").write_text(ALPHA_YAML + "workspace:\n  read_across_folders: true\n")
    trust_folder(alpha)
    client = await lsp(caps=NEOVIM, folders=[alpha, beta])
    other = str(beta / "src" / "app.py")
    message = await invalid(
        client,
        "agent/run",
        {"prompt": "x", "folder": uri(alpha), "attachments": [{"kind": "file", "path": other}]},
    )
    assert other in message and "folder beta" in message and "folder alpha" in message
    assert "workspace.read_across_folders: true" in message and "user config" in message
    # the active file of another folder, too
    message = await invalid(
        client, "agent/run", {"prompt": "x", "folder": uri(alpha), "activeFile": other}
    )
    assert "the active file" in message and "folder beta" in message
    assert scripted.requests_for("alice") == []


async def test_the_users_config_lets_a_run_read_a_file_of_another_folder(
    lsp: LspFactory,
    scripted: ScriptedModelServer,
    alpha: Path,
    beta: Path,
    user_config_dir: Path,
) -> None:
    (user_config_dir / "config.yaml").write_text("workspace:\n  read_across_folders: true\n")
    client = await lsp(caps=NEOVIM, folders=[alpha, beta])
    scripted.add("alice", text("read it"))
    other = str(beta / "src" / "app.py")
    result = plain(
        await client.run(
            prompt="compare",
            runId="x1",
            folder=uri(alpha),
            attachments=[{"kind": "file", "path": other}],
        )
    )
    assert result["status"] == "success", result
    assert result["folder"] == uri(alpha)
    [request] = scripted.requests_for("alice")
    assert "BETA_SECRET_TEXT = 2" in all_text(request)
    assert "ALPHA-RULES" in system_of(request)


async def test_a_folder_added_at_runtime_is_indexed_and_used_then_removed(
    lsp: LspFactory, scripted: ScriptedModelServer, alpha: Path, beta: Path
) -> None:
    client = await lsp(caps=NEOVIM, folders=[alpha])
    alpha_files = (await client.ping_until(lambda p: p["indexedFiles"], "alpha's index"))[
        "indexedFiles"
    ]
    assert "not a workspace folder" in await invalid(
        client, "agent/sessions", {"folder": uri(beta)}
    )

    change_folders(client, added=[beta])
    scripted.add("alice", text("done in beta"))
    # named right after the notification: the run waits for the folder to load
    result = plain(await client.run(prompt="work", runId="n1", sessionId="sn", folder=uri(beta)))
    assert result["status"] == "success", result
    assert result["folder"] == uri(beta)
    assert "BETA-RULES" in system_of(scripted.requests_for("alice")[-1])
    await client.ping_until(
        lambda p: (p["indexedFiles"] or 0) > alpha_files, "the added folder's index"
    )
    # the folder of the active file, sent as a URI, with no folder named
    scripted.add("alice", text("again in beta"))
    active = uri(beta / "src" / "app.py")
    result = plain(await client.run(prompt="more", runId="n2", sessionId="sn", activeFile=active))
    assert result["status"] == "success" and result["folder"] == uri(beta), result
    sessions = plain(await client.request("agent/sessions", {"folder": uri(beta)}))["sessions"]
    assert [(s["sessionId"], s["runs"]) for s in sessions] == [("sn", 2)]

    change_folders(client, removed=[beta])  # handled before the next message is read
    message = await invalid(client, "agent/run", {"prompt": "x", "folder": uri(beta)})
    assert uri(beta) in message and uri(alpha) in message


async def test_a_folder_removed_mid_run_ends_its_run_cleanly(
    lsp: LspFactory, scripted: ScriptedModelServer, alpha: Path, beta: Path
) -> None:
    client = await lsp(caps=NEOVIM, folders=[alpha, beta])
    scripted.add("alice", SLOW)
    run = client.run(prompt="talk", runId="gone1", folder=uri(beta))
    await client.wait_for(lambda: bool(client.of("agent/stream", "gone1")), what="streaming")
    change_folders(client, removed=[beta])
    result = plain(await asyncio.wait_for(run, 30))
    assert result["status"] == "partial"
    assert "beta was removed" in result["output"]
    assert result["folder"] == uri(beta)
    assert client.states("gone1")[-1] == "aborted"
    # later requests naming it are refused; the other folder goes on
    assert uri(beta) in await invalid(client, "agent/run", {"prompt": "x", "folder": uri(beta)})
    scripted.add("alice", text("still here"))
    result = plain(await client.run(prompt="hi", runId="stay1"))
    assert result["status"] == "success" and result["folder"] == uri(alpha)
    assert plain(await client.request("agent/ping", {}))["runs"] == 0


async def test_an_editor_that_grants_trust_grants_it_to_every_folder(
    lsp: LspFactory, scripted: ScriptedModelServer, alpha: Path, beta: Path
) -> None:
    (beta / ".agentls.yaml").write_text(
        ALPHA_YAML.replace("alpha", "beta").replace("ALPHA", "BETA")
    )
    options = {**llm_options(scripted), "workspaceTrusted": True}
    client = await lsp(folders=[alpha, beta], init_options=options)  # VS Code-like
    for folder, agent in ((alpha, "alpha-helper"), (beta, "beta-helper")):
        agents = plain(await client.request("agent/agents", {"folder": uri(folder)}))["agents"]
        assert agent in {a["name"] for a in agents}
    # a folder added later is granted the window's trust too
    gamma = make_folder(alpha.parent / "gamma", "GAMMA-RULES", "G = 3\n")
    (gamma / ".agentls.yaml").write_text(ALPHA_YAML.replace("alpha", "gamma"))
    change_folders(client, added=[gamma])
    agents = plain(await client.request("agent/agents", {"folder": uri(gamma)}))["agents"]
    assert "gamma-helper" in {a["name"] for a in agents}
    assert not any("not a trusted folder" in m.message for m in client.messages)
