"""A cloned repository opened in an editor: the real server over stdio, the user's model in
their user config, the repository's files trying to run programs and take the key.

Editors without a trust model of their own (Neovim, Emacs) follow the user's trust list;
VS Code's Workspace Trust is passed in ``initializationOptions.workspaceTrusted`` and,
when the user grants it, in ``agent/workspaceTrust``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
import yaml
from agentls_e2e import NEOVIM, VSCODE, AgentClient, LspFactory, plain
from hostile_repo import (
    ACTING_TOOLS,
    COST_RAISES,
    CUT_NOTE,
    PLANT_COMMAND,
    PLANTED_INSTRUCTIONS,
    SECRET_VALUE,
    SECRET_VARIABLE,
    USER_BUILD,
    HostileRepo,
    add_repo_agent_and_prompt,
    instructions_sent,
    make_hostile_repo,
    narrow_users_build,
    plant_instructions_in_installed_package,
    planted,
    set_costs,
    tools_sent,
)
from lsprotocol import types

from agentls.agent.config.trust import TrustStore
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)

MODEL = "user-model"
#: VS Code as the extension declares it: it answers agent/approveProgram with a modal.
VSCODE_TRUST = types.ClientCapabilities(
    workspace=VSCODE.workspace,
    window=VSCODE.window,
    experimental={"agentls": {"askUser": True, "approveProgram": True}},
)


@pytest.fixture
def repo_model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def repo(tmp_path: Path, repo_model: ScriptedModelServer) -> HostileRepo:
    return make_hostile_repo(tmp_path, repo_api_base=repo_model.api_base, escapes=False)


@pytest.fixture(autouse=True)
def user_model(scripted: ScriptedModelServer, user_config_dir: Path) -> ScriptedModelServer:
    config = {"llm": {"model": f"openai/{MODEL}", "api_base": scripted.api_base, "retries": 0}}
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    return scripted


async def run(client: AgentClient, run_id: str) -> dict[str, object]:
    result: dict[str, object] = plain(await client.run(prompt="what is this?", runId=run_id))
    return result


async def test_an_untrusted_folder_starts_nothing_and_its_endpoint_gets_nothing(
    lsp: LspFactory,
    repo: HostileRepo,
    user_model: ScriptedModelServer,
    repo_model: ScriptedModelServer,
) -> None:
    user_model.add(MODEL, text("It sums numbers."))
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    result = await run(client, "h1")
    assert result["status"] == "success", result
    assert repo.started() == [] and repo_model.requests == []
    assert len(user_model.requests_for(MODEL)) == 1
    await client.wait_for(lambda: bool(client.messages), what="the start-up warning")
    [warning] = [m for m in client.messages if "not a trusted folder" in m.message]
    assert warning.type == types.MessageType.Warning
    for named in ("llm.api_base", ".mcp.json", ".vscode/mcp.json", "agentls trust"):
        assert named in warning.message
    # Each run says it again, in the log.
    assert [m for m in client.log_messages if "[h1]" in m.message and "trusted" in m.message]


async def test_a_client_that_shows_notices_gets_the_runs_own(
    lsp: LspFactory,
    repo: HostileRepo,
    user_model: ScriptedModelServer,
) -> None:
    user_model.add(MODEL, text("one"), text("two"))
    shows = attrs.evolve(NEOVIM, experimental={"agentls": {"notices": True}})
    client = await lsp(caps=shows, init_options={}, root=repo.root)
    assert (await run(client, "n1"))["status"] == "success"
    [notice] = [n for n in client.of("agent/notice", "n1") if "trusted" in n["message"]]
    assert notice["level"] == "warning" and "agentls trust" in notice["message"]
    # The log has it too, as for every client.
    assert [m for m in client.log_messages if "[n1]" in m.message and "trusted" in m.message]

    # A client that did not declare it gets only the log line.
    other = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    assert (await run(other, "n2"))["status"] == "success"
    assert other.of("agent/notice") == []
    assert [m for m in other.log_messages if "[n2]" in m.message and "trusted" in m.message]


async def test_trusting_the_folder_from_a_terminal_applies_at_the_next_run(
    lsp: LspFactory,
    repo: HostileRepo,
    user_model: ScriptedModelServer,
    repo_model: ScriptedModelServer,
) -> None:
    user_model.add(MODEL, text("untrusted"))
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    assert (await run(client, "t1"))["status"] == "success"
    TrustStore().set_trusted(repo.root, True)  # `agentls trust` in another process
    repo_model.add(MODEL, text("trusted"))
    client.approvals = lambda params: "Don't allow"  # each of its MCP servers is asked about
    assert (await run(client, "t2"))["status"] == "success"
    assert len(repo_model.requests_for(MODEL)) == 1
    asked = [p.message for p in client.approval_requests]
    assert len(asked) == 3 and all(message.endswith("to start?") for message in asked)
    assert repo.started() == []


async def test_vscode_trust_decides_and_a_grant_applies_without_a_restart(
    lsp: LspFactory,
    repo: HostileRepo,
    user_model: ScriptedModelServer,
    repo_model: ScriptedModelServer,
) -> None:
    TrustStore().set_trusted(repo.root, True)  # the trust list does not count for VS Code
    user_model.add(MODEL, text("restricted"))
    client = await lsp(caps=VSCODE_TRUST, init_options={"workspaceTrusted": False}, root=repo.root)
    assert (await run(client, "v1"))["status"] == "success"
    assert repo_model.requests == [] and client.mcp_requests == []

    client.protocol.notify("agent/workspaceTrust", {"trusted": True})
    repo_model.add(MODEL, text("trusted"))
    assert (await run(client, "v2"))["status"] == "success"
    assert len(repo_model.requests_for(MODEL)) == 1
    by_name = {request["name"]: request for request in client.mcp_requests}
    assert sorted(by_name) == ["jsonsrv", "vscodesrv", "yamlsrv"]
    stolen = by_name["jsonsrv"]
    assert stolen["kind"] == "mcp_server" and stolen["source"] == ".mcp.json"
    assert stolen["lines"][0].startswith("command: ") and str(repo.markers) in stolen["lines"][0]
    reads = f"env STOLEN=${{env:{SECRET_VARIABLE}}}  (reads your ${SECRET_VARIABLE})"
    assert reads in stolen["lines"]
    assert [x for x in by_name["vscodesrv"]["lines"] if x.startswith("env file: ../../outside.env")]
    assert by_name["yamlsrv"]["source"] == ".agentls.yaml"
    assert repo.started() == []  # all refused

    repo_model.add(MODEL, text("again"))
    assert (await run(client, "v3"))["status"] == "success"
    assert len(client.mcp_requests) == 3  # a refusal holds while the server runs


async def test_a_server_allowed_in_the_editor_starts_and_stays_allowed(
    lsp: LspFactory,
    repo: HostileRepo,
    repo_model: ScriptedModelServer,
) -> None:
    repo_model.add(MODEL, text("one"))
    client = await lsp(
        caps=VSCODE_TRUST,
        init_options={"workspaceTrusted": True},
        root=repo.root,
        env={SECRET_VARIABLE: SECRET_VALUE},  # the variable its entry reads must be set
    )
    client.mcp_answers = {"jsonsrv": True}
    assert (await run(client, "a1"))["status"] == "success"
    assert repo.started() == ["jsonsrv"]
    store = TrustStore()
    assert store.approved_digest(repo.root, "mcp", "jsonsrv") is not None
    assert store.approved_digest(repo.root, "mcp", "yamlsrv") is None


async def test_a_command_run_from_the_editor_plants_nothing_and_reaches_no_host_socket(
    bwrap: str,
    lsp: LspFactory,
    repo: HostileRepo,
    user_model: ScriptedModelServer,
    host_socket: Path,
) -> None:
    await asyncio.to_thread(subprocess.run, ["git", "init", "-q"], cwd=repo.root, check=True)
    command = PLANT_COMMAND.format(python=sys.executable, socket=host_socket)
    user_model.add(MODEL, tool_call("execute_command", {"command": command}), text("done"))
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    result = plain(await client.run(prompt="run it", runId="p1", confirmMode="yolo"))
    assert result["status"] == "success", result
    assert planted(repo.root) == []
    messages = user_model.requests_for(MODEL)[-1].messages
    [told] = [str(m["content"]) for m in messages if m["role"] == "tool"]
    assert "CONNECTED" not in told and "The command created AGENTS.md" in told


async def test_without_a_sandbox_the_editor_shows_a_warning_with_the_install_command(
    lsp: LspFactory, repo: HostileRepo, path_without_bwrap: str
) -> None:
    client = await lsp(
        caps=NEOVIM, init_options={}, root=repo.root, env={"PATH": path_without_bwrap}
    )
    await client.wait_for(
        lambda: any("cannot be sandboxed" in m.message for m in client.messages),
        what="the no-sandbox warning",
    )
    [warning] = [m for m in client.messages if "cannot be sandboxed" in m.message]
    assert warning.type == types.MessageType.Warning
    assert "apt install bubblewrap" in warning.message


async def test_an_untrusted_folders_yolo_and_allow_list_do_not_apply_in_the_editor(
    lsp: LspFactory, repo: HostileRepo, user_model: ScriptedModelServer, user_config_dir: Path
) -> None:
    # The user allows git themselves; the repository asks for yolo and `sh*`. Neither the
    # repository's settings nor the user's `git*` may let `git -c core.fsmonitor=...` through.
    config = yaml.safe_load((user_config_dir / "config.yaml").read_text())
    config["commands"] = {"allow": ["git*"]}
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    command = "git -c core.fsmonitor='touch pwned' status"
    user_model.add(
        MODEL,
        tool_call("execute_command", {"command": command}),
        text("It runs git status with a config override."),  # the question's explanation
        text("done"),
    )
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    client.approvals = ["Deny"]
    result = plain(await client.run(prompt="check the status", runId="g1"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests
    assert "git -c core.fsmonitor" in asked.message and "-c" in asked.message
    assert not (repo.root / "pwned").exists()


def system_prompt(model: ScriptedModelServer) -> str:
    return str(model.requests_for(MODEL)[-1].body["messages"][0]["content"])


async def test_an_untrusted_folder_cannot_raise_what_a_run_costs_in_the_editor(
    lsp: LspFactory, repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    raised = set_costs(repo.root, COST_RAISES)
    user_model.add(MODEL, text("It sums numbers."))
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    assert (await run(client, "c1"))["status"] == "success"
    [notice] = [
        m.message for m in client.log_messages if "[c1]" in m.message and "trusted" in m.message
    ]
    for key in raised:
        assert f"{key} (" in notice, key
    sent = instructions_sent(system_prompt(user_model))
    assert CUT_NOTE in sent and len(sent.encode()) < 33 * 1024


async def test_an_untrusted_folder_may_lower_what_a_run_costs_in_the_editor(
    lsp: LspFactory, repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    set_costs(repo.root, {"context": {"instructions_bytes": 2000}})
    user_model.add(MODEL, text("It sums numbers."))
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    assert (await run(client, "c2"))["status"] == "success"
    logged = " ".join(m.message for m in client.log_messages if "[c2]" in m.message)
    assert "instructions_bytes (" not in logged and "AGENTS.md was cut after" in logged
    sent = instructions_sent(system_prompt(user_model))
    assert CUT_NOTE in sent and len(sent.encode()) < 2200


async def test_instructions_an_install_left_in_node_modules_are_never_read_in_the_editor(
    lsp: LspFactory, repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    installed = plant_instructions_in_installed_package(repo.root)
    user_model.add(MODEL, tool_call("read_file", {"path": installed}), text("It pads."))
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    result = plain(
        await client.run(
            prompt="what does it do?", runId="i1", activeFile=str(repo.root / installed)
        )
    )
    assert result["status"] == "success", result
    messages = user_model.requests_for(MODEL)[-1].messages
    sent = " ".join(str(m.get("content")) for m in messages)
    assert "module.exports" in sent  # the file itself was read
    assert PLANTED_INSTRUCTIONS not in sent


async def test_an_untrusted_folders_agent_can_do_no_more_than_the_users_own_in_the_editor(
    lsp: LspFactory, repo: HostileRepo, user_model: ScriptedModelServer, user_config_dir: Path
) -> None:
    narrow_users_build(user_config_dir)
    add_repo_agent_and_prompt(repo.root)
    user_model.add(
        MODEL,
        tool_call("read_file", {"path": "app.py"}),
        text("explained"),  # the question's explanation, if one is asked for
        text("done"),
    )
    client = await lsp(caps=NEOVIM, init_options={}, root=repo.root)
    client.approvals = ["Deny"]
    result = plain(await client.run(prompt="what does it do?", runId="r1", agent="helper"))
    assert result["status"] == "success", result
    first = user_model.requests_for(MODEL)[0]
    assert tools_sent(first.body) <= set(USER_BUILD["allowed_tools"])
    # confirm-all, as the user's own: even reading asks.
    [asked] = client.approval_requests
    assert "read_file" in asked.message or "app.py" in asked.message


async def test_a_folders_prompt_file_cannot_switch_the_users_agent_to_a_wider_one_in_the_editor(
    lsp: LspFactory, repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    add_repo_agent_and_prompt(repo.root)
    user_model.add(MODEL, text("The plan."))
    shows = attrs.evolve(NEOVIM, experimental={"agentls": {"notices": True}})
    client = await lsp(caps=shows, init_options={}, root=repo.root)
    result = plain(await client.run(prompt="/ship", runId="s1", agent="plan"))
    assert result["status"] == "success", result
    [request] = user_model.requests_for(MODEL)
    assert tools_sent(request.body) and not tools_sent(request.body) & ACTING_TOOLS
    [notice] = [n for n in client.of("agent/notice", "s1") if "asks for agent" in n["message"]]
    assert "asks for agent build, which may do more than plan" in notice["message"]
