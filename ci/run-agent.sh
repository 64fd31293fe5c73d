#!/usr/bin/env bash
# One headless agent run on a checked-out repository, for CI runners and containers: the
# agent works on a new branch, its changes become one commit there, and what happened is
# left as artifacts (the run's JSON result, the session log, the diff). The GitHub Action
# (action.yml) and the container image (Dockerfile) both call this script.
#
# Inputs (environment):
#   AGENTLS_PROMPT or AGENTLS_PROMPT_FILE   the task (required)
#   AGENTLS_MODEL                           a litellm model name (required)
#   AGENTLS_API_BASE                        the model's endpoint (optional)
#   the provider's key, e.g. OPENAI_API_KEY (or llm.api_key_env in your config)
#   AGENTLS_WORKSPACE     the repository (default: the current directory)
#   AGENTLS_BRANCH        the branch to create (default: agentls/<run name>)
#   AGENTLS_OUTPUT_DIR    where the artifacts go (default: $RUNNER_TEMP or /tmp, /agentls-output)
#   AGENTLS_MAX_STEPS     loop iterations (default 30)
#   AGENTLS_STEP_TIMEOUT  seconds per step (default 300)
#   AGENTLS_RUN_TIMEOUT   seconds for the whole run (default 1800)
#   AGENTLS_TOKEN_BUDGET  stop once the run used this many tokens (default: none)
#   AGENTLS_TRUST_WORKSPACE  "true": the repository's own .agentls.yaml applies whole
#                            (default false: only what cannot widen anything)
#   AGENTLS_OPEN_PR       "true": push the branch and open a pull request with `gh`
# Outputs (also to $GITHUB_OUTPUT when set): branch, changed, status.
# Exit: 0 success, 2 partial (step limit, budget, timeout), 1 failed, 3 bad input.
set -euo pipefail

fail() { echo "agentls-ci: $*" >&2; exit 3; }

# Every git of this script but the push goes through safe_git (ci/safe-git.sh).
# shellcheck source=ci/safe-git.sh
source "$(dirname "${BASH_SOURCE[0]}")/safe-git.sh"

# The push (AGENTLS_OPEN_PR) needs the runner's network and credentials, so it keeps the
# environment; it authenticates with the job's token from gh (GH_TOKEN) for this push only
# (none is kept in .git/config), and still runs no hook (pre-push) of the checkout and no
# fsmonitor.
push_branch() {
  git --no-optional-locks -c core.fsmonitor=false -c core.hooksPath=/dev/null \
    -c core.pager=cat -c credential.helper= -c 'credential.helper=!gh auth git-credential' \
    push --no-verify -q origin "$1" </dev/null
}

workspace="$(cd "${AGENTLS_WORKSPACE:-$PWD}" && pwd)"
prompt="${AGENTLS_PROMPT:-}"
if [[ -n "${AGENTLS_PROMPT_FILE:-}" ]]; then
  [[ -f "$AGENTLS_PROMPT_FILE" ]] || fail "no prompt file at $AGENTLS_PROMPT_FILE"
  prompt="$(cat "$AGENTLS_PROMPT_FILE")"
fi
[[ -n "${prompt//[[:space:]]/}" ]] || fail "no prompt: set AGENTLS_PROMPT or AGENTLS_PROMPT_FILE"
[[ -n "${AGENTLS_MODEL:-}" ]] || fail "no model: set AGENTLS_MODEL (a litellm model name)"
(cd "$workspace" && safe_git rev-parse --is-inside-work-tree) >/dev/null 2>&1 \
  || fail "$workspace is not a git repository (check it out first)"
agentls="${AGENTLS_BIN:-agentls}"
command -v "$agentls" >/dev/null 2>&1 || [[ -x "$agentls" ]] || fail "agentls is not installed"

run_name="ci-$(date -u +%Y%m%d-%H%M%S)-$$"
branch="${AGENTLS_BRANCH:-agentls/$run_name}"
out="${AGENTLS_OUTPUT_DIR:-${RUNNER_TEMP:-/tmp}/agentls-output}"
mkdir -p "$out"
cd "$workspace"
if safe_git show-ref --verify --quiet "refs/heads/$branch"; then
  fail "the branch $branch exists already; choose another with AGENTLS_BRANCH"
fi
safe_git checkout -q -b "$branch"

# actions/checkout without `persist-credentials: false` leaves the job's token in
# .git/config (http.<url>.extraheader = AUTHORIZATION: basic <base64>), where every command
# the agent runs could read it and write it into the change. It is taken out for the run
# and put back when the script ends; the push below authenticates through `gh` instead.
headers="$(safe_git config --local --get-regexp '^http\..*\.extraheader$' || true)"
restore_headers() {
  local key value
  while IFS=' ' read -r key value; do
    [[ -n "$key" ]] && safe_git config --local --add "$key" "$value"
  done <<<"$headers"
}
if [[ -n "$headers" ]]; then
  echo "agentls-ci: warning: .git/config holds a token (actions/checkout's" \
       "persist-credentials); it is kept out of the run: set persist-credentials: false" >&2
  trap restore_headers EXIT
  while IFS=' ' read -r key _; do
    safe_git config --local --unset-all "$key" || true
  done <<<"$headers"
fi

if [[ "${AGENTLS_TRUST_WORKSPACE:-false}" == "true" ]]; then
  "$agentls" trust "$workspace" >/dev/null
fi

args=(run "$prompt" --workspace "$workspace" --model "$AGENTLS_MODEL" --json
      --mode yolo --session "$run_name"
      --max-steps "${AGENTLS_MAX_STEPS:-30}" --timeout "${AGENTLS_STEP_TIMEOUT:-300}")
[[ -n "${AGENTLS_API_BASE:-}" ]] && args+=(--api-base "$AGENTLS_API_BASE")
[[ -n "${AGENTLS_TOKEN_BUDGET:-}" ]] && args+=(--token-budget "$AGENTLS_TOKEN_BUDGET")

set +e
timeout --signal=INT --kill-after=30 "${AGENTLS_RUN_TIMEOUT:-1800}" \
  "$agentls" "${args[@]}" </dev/null >"$out/result.json"
code=$?
set -e
case "$code" in
  0) status=success ;;
  2) status=partial ;;
  124|130) status=partial; echo "agentls-ci: the run was stopped after ${AGENTLS_RUN_TIMEOUT:-1800} s" >&2 ;;
  *) status=failed ;;
esac

# The artifacts go through agentls's outward pass, like its own output (result.json).
session_file="$workspace/.agentls/sessions/$run_name.jsonl"
if [[ -f "$session_file" ]]; then
  "$agentls" mask --workspace "$workspace" <"$session_file" >"$out/session.jsonl"
fi

# The agent's own state (.agentls/) is not part of the change.
safe_git add -A -- . ':(exclude).agentls'
changed=false
if ! safe_git diff --cached --quiet; then
  title="agentls: $(printf '%s' "$prompt" | head -n 1 | cut -c1-60)"
  safe_git commit -q -m "$title" -m "Run $run_name ($status) by agentls with $AGENTLS_MODEL."
  safe_git diff HEAD~1 HEAD | "$agentls" mask --workspace "$workspace" >"$out/changes.diff"
  changed=true
fi
echo "agentls-ci: $status; branch $branch; changes: $changed; artifacts in $out" >&2

if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  { echo "branch=$branch"; echo "changed=$changed"; echo "status=$status"; } >>"$GITHUB_OUTPUT"
fi

if [[ "${AGENTLS_OPEN_PR:-false}" == "true" && "$changed" == "true" ]]; then
  command -v gh >/dev/null 2>&1 || fail "AGENTLS_OPEN_PR needs the GitHub CLI (gh)"
  push_branch "$branch"
  gh pr create --head "$branch" --title "$title" \
    --body "Opened by agentls ($status). Prompt:

$prompt"
fi

case "$status" in success) exit 0 ;; partial) exit 2 ;; *) exit 1 ;; esac
