#!/usr/bin/env bash
# End-to-end tests of the VS Code extension in a real VS Code (the server build inside the
# code-server npm package, in Debian's Chromium, driven by playwright-core; see
# docs/vscode.md). Starts the scripted model server and the VS Code server (in its own
# process group), runs client-vscode/e2e/runner.mjs, stops both, and prints
# `N passed, N failed` as its last line. Exit status: 0 when nothing failed.
# Screenshots go to test-artifacts/vscode/.
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

(cd "$ext_dir" && npm run --silent compile) || fail "the extension does not compile"
python_setting="\"agentls.python\": \"$python\","
if [ "${AGENTLS_E2E_MANAGED:-0}" = "1" ]; then
  (cd "$ext_dir" && AGENTLS_PYTHON="$python" npm run --silent bundle) || fail "the server package could not be built"
  python_setting=""
fi

tmp="$(mktemp -d /tmp/agentls-vscode-e2e.XXXXXX)"
model_pid=""
server_pgid=""
cleanup() {
  [ -n "$server_pgid" ] && kill -- "-$server_pgid" 2>/dev/null
  [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

rm -rf "$artifacts"
mkdir -p "$artifacts" "$tmp/home" "$tmp/user/User" "$tmp/srv" "$tmp/ext"
cp -r "$ext_dir/e2e/workspace" "$tmp/ws"

# The scripted model server: the tests queue turns with POST /_script.
echo '[]' > "$tmp/script.json"
"$python" -P -m agentls.agent.llm.scripted_server --port 0 --script "$tmp/script.json" > "$tmp/model.out" 2> "$tmp/model.err" &
model_pid=$!
model_port=""
for _ in $(seq 1 100); do
  model_port="$(sed -n 's/^LISTENING \([0-9]*\).*/\1/p' "$tmp/model.out")"
  [ -n "$model_port" ] && break
  kill -0 "$model_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$model_port" ] || { cat "$tmp/model.err" >&2; fail "the scripted model server did not start"; }

cat > "$tmp/user/User/settings.json" <<JSON
{
  "security.workspace.trust.enabled": false,
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
  "agentls.apiBase": "http://127.0.0.1:$model_port/v1",
  "agentls.confirmMode": "yolo",
  "agentls.maxSteps": 10,
  "agentls.logLevel": "info"
}
JSON

port="$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
setsid env HOME="$tmp/home" PATH="$n24_bin:$PATH" \
  AGENTLS_LOG_CONSOLE=1 AGENTLS_E2E_MODEL_URL="http://127.0.0.1:$model_port" LITELLM_API_KEY="sk-e2e-from-env" \
  "$NODE24" "$SERVER_MAIN" --host 127.0.0.1 --port "$port" --without-connection-token \
  --accept-server-license-terms --enable-smoke-test-driver --telemetry-level off \
  --server-data-dir "$tmp/srv" --user-data-dir "$tmp/user" --extensions-dir "$tmp/ext" \
  > "$tmp/vscode-server.log" 2>&1 &
server_pgid=$!
for _ in $(seq 1 150); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$server_pgid" 2>/dev/null || { cat "$tmp/vscode-server.log" >&2; fail "the VS Code server exited"; }
  sleep 0.2
done

"$NODE24" "$ext_dir/e2e/runner.mjs" --port "$port" --workspace "$tmp/ws" --ext "$ext_dir" \
  --artifacts "$artifacts" --timeout "$timeout_s" --chromium "$CHROMIUM" | tee "$tmp/runner.out"
result="$(grep -E '^RESULT [0-9]+ [0-9]+$' "$tmp/runner.out" | tail -1)"
cp "$tmp/vscode-server.log" "$artifacts/vscode-server.log" 2>/dev/null
cp "$tmp/model.err" "$artifacts/model-server.log" 2>/dev/null
if [ -z "$result" ]; then
  fail "the runner crashed"
fi
read -r _ passed failed <<< "$result"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
