#!/usr/bin/env bash
# Install the third-party stdio MCP servers the tests run (published on PyPI, offline-capable)
# into their own venv under .cache/, and print that venv's bin directory. They pin their own
# `mcp`, so they stay out of the project venv. Idempotent: a second run only checks the marker.
#   mcp-server-time: tools get_current_time and convert_time, no network needed.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
main_python="${AGENTLS_PYTHON:-$repo_root/.venv/bin/python}"
venv="${AGENTLS_MCP_SERVERS_VENV:-$repo_root/.cache/mcp-servers-venv}"
packages=("mcp-server-time")
wanted="${packages[*]}"
marker="$venv/.agentls-mcp-servers"

if [[ ! -x "$main_python" ]]; then
  echo "ensure_mcp_servers: no project interpreter at $main_python" >&2
  exit 1
fi

# Two test processes may ask at once: one installs, the other waits for it.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9

if [[ -x "$venv/bin/mcp-server-time" && -f "$marker" && "$(cat "$marker")" == "$wanted" ]]; then
  echo "$venv/bin"
  exit 0
fi

echo "ensure_mcp_servers: installing $wanted into $venv" >&2
mkdir -p "$(dirname "$venv")"
base_python="$("$main_python" -c 'import sys; print(sys._base_executable)')"
"$base_python" -m venv "$venv"
# pip's output goes to stderr so that stdout carries only the bin directory.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" 1>&2
echo "$wanted" > "$marker"
echo "$venv/bin"
