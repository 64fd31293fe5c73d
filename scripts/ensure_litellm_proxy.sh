#!/usr/bin/env bash
# Install litellm[proxy] into its own venv under .cache/ and print the path of its `litellm`
# binary. The proxy extras weigh ~740 MB, so they stay out of the project venv; the litellm
# version is the one the project venv has (or the nearest older one that installs), so
# both sides speak the same dialect.
# Idempotent: a second run only checks the version and prints the path.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
main_python="${AGENTLS_PYTHON:-$repo_root/.venv/bin/python}"
venv="${AGENTLS_PROXY_VENV:-$repo_root/.cache/litellm-proxy-venv}"

if [[ ! -x "$main_python" ]]; then
  echo "ensure_litellm_proxy: no project interpreter at $main_python" >&2
  exit 1
fi

version="$("$main_python" -c 'import importlib.metadata as m; print(m.version("litellm"))')"
marker="$venv/.agentls-litellm-version"

# Two test processes may ask at once: one installs, the other waits for it.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9

if [[ -x "$venv/bin/litellm" && -f "$marker" && "$(cat "$marker")" == "$version" ]]; then
  echo "$venv/bin/litellm"
  exit 0
fi

echo "ensure_litellm_proxy: installing litellm[proxy]==$version into $venv" >&2
mkdir -p "$(dirname "$venv")"
# The venv's own interpreter is the one the project venv was built from.
base_python="$("$main_python" -c 'import sys; print(sys._base_executable)')"
"$base_python" -m venv "$venv"
# pip's progress goes to stderr so that stdout carries only the binary's path. Some
# litellm releases name proxy packages in their [proxy] extra that were never published
# (1.110 needs litellm-proxy); then the newest release up to ours whose extra installs.
pip_install() {
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 1>&2
}
if ! pip_install "litellm[proxy]==$version"; then
  echo "ensure_litellm_proxy: litellm[proxy]==$version cannot be installed; taking the newest release up to it whose proxy extra can" >&2
  pip_install "litellm[proxy]<=$version"
fi
echo "$version" > "$marker"
echo "$venv/bin/litellm"
