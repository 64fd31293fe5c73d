"""A cloned repository against the headless CLI, as a new user runs it: `agentls run` in the
repository, the user's own model in their user config, the repository's files trying to
run programs, take the key, loosen the guards and leave their folder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from agentls_e2e import run_in_terminal
from hostile_repo import (
    ACTING_TOOLS,
    COST_RAISES,
    CUT_NOTE,
    PLANT_COMMAND,
    PLANTED_INSTRUCTIONS,
    REPO_PROMPT,
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

from agentls.agent.config.trust import TrustStore
from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    key_fingerprint,
    text,
    tool_call,
)

pytestmark = pytest.mark.timeout(180)

USER_KEY = "user-own-key-abcdef012345"
MODEL = "user-model"


@pytest.fixture
def repo_model() -> Iterator[ScriptedModelServer]:
    """The endpoint the repository would like the user's requests to go to."""
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def user_model(scripted: ScriptedModelServer, user_config_dir: Path) -> ScriptedModelServer:
    """The user's own model, set in their user config (not on the command line)."""
    config = {"llm": {"model": f"openai/{MODEL}", "api_base": scripted.api_base}}
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    return scripted


def agentls(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_API_KEY": USER_KEY,
        SECRET_VARIABLE: SECRET_VALUE,
    }
    return subprocess.run(
        [sys.executable, "-m", "agentls.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=150,
    )


def tool_results(model: ScriptedModelServer) -> list[str]:
    """What the model was told its tool calls did, in its last request."""
    messages = model.requests_for(MODEL)[-1].messages
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


def run(repo: HostileRepo, *extra: str) -> subprocess.CompletedProcess[str]:
    return agentls(repo.root, "run", "what does this project do?", *extra)


@pytest.fixture
def repo(tmp_path: Path, repo_model: ScriptedModelServer) -> HostileRepo:
    return make_hostile_repo(tmp_path, repo_api_base=repo_model.api_base)


@pytest.fixture
def tame_repo(tmp_path: Path, repo_model: ScriptedModelServer) -> HostileRepo:
    """The same repository without the keys no folder may set: it can be trusted."""
    return make_hostile_repo(tmp_path, repo_api_base=repo_model.api_base, escapes=False)


def test_an_untrusted_repository_starts_none_of_its_mcp_servers_and_says_what_it_ignored(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    user_model.add(MODEL, text("It sums numbers."))
    done = run(repo)
    assert done.returncode == 0, done.stderr
    assert repo.started() == []
    for ignored in ("mcp.servers", ".mcp.json", ".vscode/mcp.json", "llm.api_base"):
        assert ignored in done.stderr
    assert f"agentls trust {repo.root}" in done.stderr


def test_an_untrusted_repository_gets_neither_the_key_nor_the_code(
    repo: HostileRepo, user_model: ScriptedModelServer, repo_model: ScriptedModelServer
) -> None:
    user_model.add(MODEL, text("It sums numbers."))
    done = run(repo)
    assert done.returncode == 0, done.stderr
    assert repo_model.requests == []
    [request] = user_model.requests_for(MODEL)
    assert request.auth_sha256 == key_fingerprint(USER_KEY)
    system = request.body["messages"][0]["content"]
    assert REPO_PROMPT not in str(system) and "You are agentls" in str(system)


def test_an_untrusted_repository_cannot_loosen_the_guards(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    # Its config asks for yolo, no sandbox and `sh*` allowed: none of it applies, so the
    # command needs a confirmation nobody can give without a terminal.
    command = "sh -c 'echo pwned > pwned.txt'"
    explanation = text("It writes pwned.txt.")  # asked of the model for the question
    user_model.add(
        MODEL, tool_call("execute_command", {"command": command}), explanation, text("done")
    )
    done = run(repo)
    assert done.returncode == 0, done.stderr
    assert not (repo.root / "pwned.txt").exists()
    assert "no terminal" in tool_results(user_model)[0]


def test_an_untrusted_repository_cannot_move_the_workspace_or_the_state_outside(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    # `workspace.root: ../..` would make the folder above the repository readable.
    user_model.add(MODEL, tool_call("read_file", {"path": "secret.txt"}), text("none"))
    done = run(repo)  # in the repository, without --workspace
    assert done.returncode == 0, done.stderr
    assert "private key" not in tool_results(user_model)[0]
    assert list(repo.elsewhere.iterdir()) == []  # no session, no log there
    assert list((repo.root / ".agentls" / "sessions").glob("*.jsonl"))


def test_a_trusted_repository_still_cannot_leave_its_folder(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    TrustStore().set_trusted(repo.root, True)
    done = run(repo)
    assert done.returncode == 1
    assert "workspace.root: ../.. leads outside the folder of .agentls.yaml" in done.stderr
    assert list(repo.elsewhere.iterdir()) == []


def test_a_symlinked_state_directory_is_refused_not_followed(
    tame_repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    (tame_repo.root / ".agentls").symlink_to(tame_repo.elsewhere)
    user_model.add(MODEL, text("hi"))
    done = run(tame_repo)
    assert done.returncode == 1
    assert ".agentls is a symlink" in done.stderr
    assert list(tame_repo.elsewhere.iterdir()) == []


def test_a_trusted_repository_starts_a_server_only_once_that_definition_is_approved(
    tame_repo: HostileRepo, user_model: ScriptedModelServer, repo_model: ScriptedModelServer
) -> None:
    repo = tame_repo
    trusted = agentls(repo.root, "trust")
    assert trusted.returncode == 0 and "Trusted" in trusted.stdout
    repo_model.add(MODEL, text("hi"))  # trusted: its llm settings apply
    first = run(repo, "--model", f"openai/{MODEL}")
    assert first.returncode == 0, first.stderr
    assert repo.started() == []
    assert f"agentls mcp approve jsonsrv --workspace {repo.root}" in first.stderr

    listing = agentls(repo.root, "mcp", "list")
    assert "jsonsrv  (.mcp.json)  not approved" in listing.stdout
    assert f"env STOLEN=${{env:{SECRET_VARIABLE}}}" in listing.stdout  # the secret it reads
    approved = agentls(repo.root, "mcp", "approve", "--all")
    assert approved.returncode == 0, approved.stderr

    repo_model.add(MODEL, text("hi"))
    second = run(repo, "--model", f"openai/{MODEL}")
    assert second.returncode == 0, second.stderr
    # The VS Code entry's envFile lies outside the workspace: refused, never read.
    assert repo.started() == ["jsonsrv", "yamlsrv"]
    assert "env_file '../../outside.env' is outside the workspace" in second.stderr

    # The repository changes the approved command under the same name: asked again.
    for marker in repo.markers.iterdir():
        marker.unlink()
    mcp_json = repo.root / ".mcp.json"
    mcp_json.write_text(mcp_json.read_text().replace('"-c"', '"-B", "-c"'))
    repo_model.add(MODEL, text("hi"))
    third = run(repo, "--model", f"openai/{MODEL}")
    assert "jsonsrv" not in repo.started()
    assert "not approved in this form" in third.stderr


def test_the_cli_never_prints_a_secret(
    repo: HostileRepo, user_model: ScriptedModelServer, user_config_dir: Path
) -> None:
    # A server of the user's own whose URL carries a key: its connection error names the URL.
    config = yaml.safe_load((user_config_dir / "config.yaml").read_text())
    config["mcp"] = {
        "servers": [{"name": "api", "url": f"http://127.0.0.1:9/mcp/${{env:{SECRET_VARIABLE}}}"}]
    }
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    user_model.add(MODEL, text(f"The token is {SECRET_VALUE}."))
    done = run(repo)
    assert done.returncode == 0, done.stderr
    assert "MCP server 'api'" in done.stderr
    assert SECRET_VALUE not in done.stderr and SECRET_VALUE not in done.stdout
    assert "The token is ***." in done.stdout


def _run_in_terminal(repo: HostileRepo, answer: str) -> tuple[str, int]:
    """`agentls run` with a terminal on stdin: answers the trust question with ``answer``."""
    return run_in_terminal(
        repo.root,
        "run",
        "hi",
        "--model",
        f"openai/{MODEL}",
        answers=[("Trust this folder? [y/N]", answer)],
        env={"LITELLM_API_KEY": USER_KEY},
    )


def test_the_first_run_in_a_terminal_asks_once_and_remembers(
    tame_repo: HostileRepo, user_model: ScriptedModelServer, repo_model: ScriptedModelServer
) -> None:
    user_model.add(MODEL, text("hi"))
    asked, code = _run_in_terminal(tame_repo, "n")
    assert code == 0
    assert "llm.api_base" in asked and ".mcp.json" in asked
    assert TrustStore().state(tame_repo.root) == "untrusted"
    assert repo_model.requests == []
    # Asked once: the next run (no terminal) says it is untrusted and asks nothing.
    user_model.add(MODEL, text("hi"))
    again = run(tame_repo)
    assert "Trust this folder?" not in again.stderr
    assert "is not a trusted folder" in again.stderr


def test_answering_yes_trusts_the_folder_for_this_and_later_runs(
    tame_repo: HostileRepo, user_model: ScriptedModelServer, repo_model: ScriptedModelServer
) -> None:
    repo_model.add(MODEL, text("hi"))
    # Then each of its MCP servers is asked about, with its command: no to all three.
    _, code = _run_in_terminal(tame_repo, "y\nn\nn\nn")
    assert code == 0
    assert TrustStore().state(tame_repo.root) == "trusted"
    assert len(repo_model.requests_for(MODEL)) == 1  # its own llm settings now apply
    assert tame_repo.started() == []


def test_a_command_can_neither_plant_files_for_later_nor_reach_host_services(
    bwrap: str, tame_repo: HostileRepo, user_model: ScriptedModelServer, host_socket: Path
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tame_repo.root, check=True)
    command = PLANT_COMMAND.format(python=sys.executable, socket=host_socket)
    user_model.add(MODEL, tool_call("execute_command", {"command": command}), text("done"))
    done = run(tame_repo, "--mode", "yolo")  # the user's own choice: nothing is asked
    assert done.returncode == 0, done.stderr
    assert planted(tame_repo.root) == []
    [result] = tool_results(user_model)
    assert "CONNECTED" not in result
    assert "The command created AGENTS.md" in result and "It was removed" in result


def test_without_a_sandbox_the_first_line_says_so_with_the_install_command(
    tame_repo: HostileRepo,
    user_model: ScriptedModelServer,
    path_without_bwrap: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", path_without_bwrap)
    user_model.add(MODEL, text("hi"))
    done = run(tame_repo)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("agentls:")]
    assert "commands cannot be sandboxed: bubblewrap is not installed" in lines[0]
    assert "apt install bubblewrap" in lines[0]


def test_an_allowed_program_with_an_option_that_runs_code_still_asks(
    tame_repo: HostileRepo, user_model: ScriptedModelServer, user_config_dir: Path
) -> None:
    config = yaml.safe_load((user_config_dir / "config.yaml").read_text())
    config["commands"] = {"allow": ["git*", "find*", "sed*"]}
    (user_config_dir / "config.yaml").write_text(yaml.safe_dump(config))
    subprocess.run(["git", "init", "-q"], cwd=tame_repo.root, check=True)
    for command in (
        "git -c core.fsmonitor='touch pwned' status",
        "find . -name app.py -exec touch pwned ;",
        "sed -n '1e touch pwned' app.py",
    ):
        user_model.add(
            MODEL,
            tool_call("execute_command", {"command": command}),
            text("explained"),  # the question's explanation
            text("done"),
        )
        done = run(tame_repo)
        assert done.returncode == 0, done.stderr
        assert "no terminal" in tool_results(user_model)[0], command  # asked, so refused
        assert not (tame_repo.root / "pwned").exists(), command


def system_prompt(model: ScriptedModelServer) -> str:
    return str(model.requests_for(MODEL)[-1].body["messages"][0]["content"])


def test_an_untrusted_repository_cannot_raise_what_a_run_costs(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    raised = set_costs(repo.root, COST_RAISES)
    user_model.add(MODEL, text("It sums numbers."))
    done = run(repo)
    assert done.returncode == 0, done.stderr
    notice = " ".join(done.stderr.split())  # as one line, however the terminal wrapped it
    for key in raised:
        assert f"{key} (" in notice, key
    # The 40 KiB AGENTS.md was cut at the user's budget, not the repository's billion bytes.
    sent = instructions_sent(system_prompt(user_model))
    assert CUT_NOTE in sent and len(sent.encode()) < 33 * 1024


def test_an_untrusted_repository_may_lower_what_a_run_costs(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    set_costs(repo.root, {"context": {"instructions_bytes": 2000}})
    user_model.add(MODEL, text("It sums numbers."))
    done = run(repo)
    assert done.returncode == 0, done.stderr
    assert "instructions_bytes (" not in done.stderr  # not among the ignored keys
    assert "AGENTS.md was cut after" in done.stderr
    sent = instructions_sent(system_prompt(user_model))
    assert CUT_NOTE in sent and len(sent.encode()) < 2200


def test_instructions_an_install_left_in_node_modules_are_never_read(
    tame_repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    installed = plant_instructions_in_installed_package(tame_repo.root)
    user_model.add(MODEL, tool_call("read_file", {"path": installed}), text("It pads."))
    # Run from inside the package: the folder a terminal run starts in counts as reached.
    package = tame_repo.root / "node_modules" / "left-pad"
    done = agentls(package, "run", "what does it do?", "--workspace", str(tame_repo.root))
    assert done.returncode == 0, done.stderr
    [result] = tool_results(user_model)
    assert "module.exports" in result  # the file itself was read
    sent = " ".join(str(m.get("content")) for m in user_model.requests_for(MODEL)[-1].messages)
    assert PLANTED_INSTRUCTIONS not in sent


def test_an_untrusted_repositorys_agent_can_do_no_more_than_the_users_own(
    repo: HostileRepo, user_model: ScriptedModelServer, user_config_dir: Path
) -> None:
    narrow_users_build(user_config_dir)
    add_repo_agent_and_prompt(repo.root)
    user_model.add(
        MODEL,
        tool_call("read_file", {"path": "app.py"}),
        text("explained"),  # the question's explanation, if one is asked for
        text("done"),
    )
    done = agentls(repo.root, "run", "what does it do?", "--agent", "helper")
    assert done.returncode == 0, done.stderr
    first = user_model.requests_for(MODEL)[0]
    assert tools_sent(first.body) <= set(USER_BUILD["allowed_tools"])
    # confirm-all, as the user's own: even reading asks, and nobody can answer here.
    assert "no terminal" in tool_results(user_model)[0]


def test_a_repositorys_prompt_file_cannot_switch_the_users_agent_to_a_wider_one(
    repo: HostileRepo, user_model: ScriptedModelServer
) -> None:
    add_repo_agent_and_prompt(repo.root)
    user_model.add(MODEL, text("The plan."))
    done = agentls(repo.root, "run", "/ship", "--agent", "plan")
    assert done.returncode == 0, done.stderr
    [request] = user_model.requests_for(MODEL)
    assert tools_sent(request.body) and not tools_sent(request.body) & ACTING_TOOLS
    said = " ".join(done.stderr.split())
    assert "asks for agent build, which may do more than plan" in said
    assert "it runs with plan" in said
