#!/usr/bin/env bash
# End-to-end tests of the VS Code extension in a real VS Code (the server build inside the
# code-server npm package, in Debian's Chromium, driven by playwright-core; see
# docs/vscode.md). Starts the scripted model servers, then two VS Code sessions one after the
# other, each a VS Code server (in its own process group) driven by
# client-vscode/e2e/runner.mjs:
#   main   the suites of src/test/e2e/ with Workspace Trust off, in a copy of e2e/workspace/;
#   trust  the suites of src/test/e2e-trust/ with Workspace Trust on: a copy of
#          e2e/workspace-trust/ opens in Restricted Mode (no startup prompt), with an
#          .agentls.yaml that points at a second scripted model server (the repository's)
#          while the user's agentls config points at the first (the user's). Its suites run
#          under e2e/driver/ rather than as extension tests, which get no modal dialogs.
#   multiroot  the suites of src/test/e2e-multiroot/ in a multi-root workspace: a copy of
#          e2e/workspace-multiroot/, opened by its .code-workspace of two folders (api, web).
# It prints `N passed, N failed` (every session) as its last line; exit status 0 when
# nothing failed. AGENTLS_E2E_SESSIONS="trust" runs only the named sessions.
# Screenshots go to test-artifacts/vscode/ (the trust session's are named trust-*, the
# multiroot session's multiroot-*).
# The extension runs the server with `agentls.python` = the project's venv. With
# AGENTLS_E2E_MANAGED=1 that setting is left out: the extension sets up its own server
# environment from the package built by `npm run bundle` (pip, about a minute more).
set -uo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext_dir="$repo_root/client-vscode"
python="${AGENTLS_PYTHON:-$repo_root/.venv/bin/python}"
artifacts="$repo_root/test-artifacts/vscode"
timeout_s="${AGENTLS_VSCODE_E2E_TIMEOUT:-420}"

fail() {
  echo "vscode_e2e: $*" >&2
  echo "0 passed, 1 failed"
  exit 1
}

setup_out="$(bash "$repo_root/scripts/ensure_vscode_e2e.sh")" || fail "toolchain set-up failed"
eval "$(echo "$setup_out" | grep -E '^(NODE24|SERVER_MAIN|CHROMIUM)=')"
n24_bin="$(dirname "$NODE24")"

# From scratch: tsc leaves the output of a renamed or deleted suite behind, and index.js runs
# every *.test.js it finds. AGENTLS_E2E_COMPILED=1: the caller just did (test_all.sh, whose
# integration tests read out/test meanwhile).
if [ "${AGENTLS_E2E_COMPILED:-0}" != "1" ]; then
  (cd "$ext_dir" && rm -rf out/test && npm run --silent compile) || fail "the extension does not compile"
fi
python_setting="\"agentls.python\": \"$python\","
if [ "${AGENTLS_E2E_MANAGED:-0}" = "1" ]; then
  (cd "$ext_dir" && AGENTLS_PYTHON="$python" npm run --silent bundle) || fail "the server package could not be built"
  python_setting=""
fi

tmp="$(mktemp -d /tmp/agentls-vscode-e2e.XXXXXX)"
model_pids=()
server_pgid=""
cleanup() {
  [ -n "$server_pgid" ] && kill -- "-$server_pgid" 2>/dev/null
  for pid in "${model_pids[@]}"; do
    kill "$pid" 2>/dev/null
  done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

rm -rf "$artifacts"
mkdir -p "$artifacts"

# A scripted model server (the tests queue turns with POST /_script); sets model_port.
start_model_server() {
  local name="$1"
  echo '[]' > "$tmp/$name-script.json"
  "$python" -P -m agentls.agent.llm.scripted_server --port 0 --script "$tmp/$name-script.json" \
    > "$tmp/$name.out" 2> "$tmp/$name.err" &
  local pid=$!
  model_pids+=("$pid")
  model_port=""
  for _ in $(seq 1 100); do
    model_port="$(sed -n 's/^LISTENING \([0-9]*\).*/\1/p' "$tmp/$name.out")"
    [ -n "$model_port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$model_port" ] || { cat "$tmp/$name.err" >&2; fail "the scripted model server ($name) did not start"; }
}

start_model_server model
user_model_port="$model_port"

# The user settings both sessions share; each adds its own lines first.
common_settings() {
  cat <<JSON
  "chat.disableAIFeatures": true,
  "files.autoSave": "off",
  "workbench.startupEditor": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "telemetry.telemetryLevel": "off",
  "git.enabled": false,
  $python_setting
  "agentls.model": "openai/e2e",
  "agentls.confirmMode": "yolo",
  "agentls.maxSteps": 10,
  "agentls.logLevel": "info"
JSON
}

total_passed=0
total_failed=0

# run_session NAME WORKSPACE tests|driver [VAR=value ...]: a fresh VS Code server (its own
# HOME, user data, extensions) with settings from $dir/settings.json, the runner against
# WORKSPACE, the counts added to the totals. `driver`: the suites run under e2e/driver/ (an
# ordinary extension, so that modal dialogs show) and log to a file (runner.mjs --log-file). The variables go to the VS Code server's
# environment, which the extension host and the agentls server inherit.
run_session() {
  local name="$1" ws="$2" mode="$3"
  shift 3
  local dir="$tmp/$name" suffix="" driver_args=() open_args=()
  # A .code-workspace: opened as a multi-root workspace; the acks go to its first folder.
  if [[ "$ws" == *.code-workspace ]]; then
    open_args=(--workspace-file "$ws")
    ws="$(dirname "$ws")/$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["folders"][0]["path"])' "$ws")"
  fi
  [ "$name" = "main" ] || suffix="-$name"
  mkdir -p "$dir/home" "$dir/user/User" "$dir/srv" "$dir/ext"
  if [ "$mode" = "driver" ]; then
    # Installed as an ordinary extension: the web workbench takes one development folder.
    cp -r "$ext_dir/e2e/driver" "$dir/ext/agentls.agentls-e2e-driver-0.0.1"
    driver_args=(--log-file "$dir/e2e.log")
    set -- AGENTLS_E2E_LOG_FILE="$dir/e2e.log" AGENTLS_E2E_TESTS="$ext_dir/out/test/index.js" "$@"
  fi
  # A language-model provider that answers from a script (the editor's models), installed
  # as an ordinary extension beside agentls.
  cp -r "$ext_dir/e2e/lm-provider" "$dir/ext/agentls.agentls-e2e-lm-provider-0.0.1"
  cp "$dir/settings.json" "$dir/user/User/settings.json"
  local port
  port="$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  setsid env HOME="$dir/home" PATH="$n24_bin:$PATH" \
    AGENTLS_LOG_CONSOLE=1 AGENTLS_E2E_MODEL_URL="http://127.0.0.1:$user_model_port" LITELLM_API_KEY="sk-e2e-from-env" \
    "$@" \
    "$NODE24" "$SERVER_MAIN" --host 127.0.0.1 --port "$port" --without-connection-token \
    --accept-server-license-terms --enable-smoke-test-driver --telemetry-level off \
    --server-data-dir "$dir/srv" --user-data-dir "$dir/user" --extensions-dir "$dir/ext" \
    > "$dir/vscode-server.log" 2>&1 &
  server_pgid=$!
  for _ in $(seq 1 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$server_pgid" 2>/dev/null || { cat "$dir/vscode-server.log" >&2; fail "the VS Code server ($name) exited"; }
    sleep 0.2
  done

  "$NODE24" "$ext_dir/e2e/runner.mjs" --port "$port" --workspace "$ws" --ext "$ext_dir" \
    --artifacts "$artifacts" --timeout "$timeout_s" --chromium "$CHROMIUM" --final "final$suffix" "${driver_args[@]}" "${open_args[@]}" | tee "$dir/runner.out"
  kill -- "-$server_pgid" 2>/dev/null
  wait "$server_pgid" 2>/dev/null
  server_pgid=""
  cp "$dir/vscode-server.log" "$artifacts/vscode-server$suffix.log" 2>/dev/null
  local result passed failed
  result="$(grep -E '^RESULT [0-9]+ [0-9]+$' "$dir/runner.out" | tail -1)"
  if [ -z "$result" ]; then
    echo "vscode_e2e: the runner of the $name session crashed" >&2
    total_failed=$((total_failed + 1))
    return
  fi
  read -r _ passed failed <<< "$result"
  echo "vscode_e2e: $name session: $passed passed, $failed failed"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}

sessions="${AGENTLS_E2E_SESSIONS:-main trust multiroot}"

if [[ " $sessions " == *" main "* ]]; then
  cp -r "$ext_dir/e2e/workspace" "$tmp/ws"
  mkdir -p "$tmp/main"
  cat > "$tmp/main/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false,
  "agentls.apiBase": "http://127.0.0.1:$user_model_port/v1",
$(common_settings)
}
JSON
  run_session main "$tmp/ws" tests
fi

if [[ " $sessions " == *" trust "* ]]; then
  # The repository's model server, named by the workspace's .agentls.yaml; the user's is
  # named by the user's own agentls config (not by a VS Code setting: those rank above the
  # workspace file, which could then never be seen to apply).
  start_model_server repo-model
  repo_model_port="$model_port"
  cp -r "$ext_dir/e2e/workspace-trust" "$tmp/ws-trust"
  printf 'llm:\n  api_base: http://127.0.0.1:%s/v1\n' "$repo_model_port" > "$tmp/ws-trust/.agentls.yaml"
  mkdir -p "$tmp/trust/agentls-config"
  printf 'llm:\n  api_base: http://127.0.0.1:%s/v1\n' "$user_model_port" > "$tmp/trust/agentls-config/config.yaml"
  cat > "$tmp/trust/settings.json" <<JSON
{
  "security.workspace.trust.enabled": true,
  "security.workspace.trust.startupPrompt": "never",
$(common_settings)
}
JSON
  run_session trust "$tmp/ws-trust" driver AGENTLS_E2E_SUITE=e2e-trust \
    AGENTLS_E2E_REPO_MODEL_URL="http://127.0.0.1:$repo_model_port" \
    AGENTLS_CONFIG_DIR="$tmp/trust/agentls-config" E2E_GITHUB_TOKEN="ghp_e2e_not_a_real_token"
  cp "$tmp/repo-model.err" "$artifacts/repo-model-server.log" 2>/dev/null
fi

if [[ " $sessions " == *" multiroot "* ]]; then
  cp -r "$ext_dir/e2e/workspace-multiroot" "$tmp/ws-multiroot"
  mkdir -p "$tmp/multiroot"
  cat > "$tmp/multiroot/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false,
  "agentls.apiBase": "http://127.0.0.1:$user_model_port/v1",
$(common_settings)
}
JSON
  run_session multiroot "$tmp/ws-multiroot/multiroot.code-workspace" tests AGENTLS_E2E_SUITE=e2e-multiroot
fi

cp "$tmp/model.err" "$artifacts/model-server.log" 2>/dev/null
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ] && [ "$total_passed" -gt 0 ]
