#!/usr/bin/env bash
# One pull-request review on a checkout of the pull request's head: the `review` agent
# (read-only tools, and a dry run) reads the diff base...head with the repository's review
# instructions (the "Review" sections of AGENTS.md) and answers with findings as JSON;
# those at or above a severity, on lines of the diff, at most N, become ONE GitHub review
# with line comments (`gh api`). Nothing is written to the repository; an answer that does
# not parse posts nothing. The GitHub Action (action.yml, mode: review) calls this script.
#
# Inputs (environment):
#   AGENTLS_MODEL            a litellm model name (required)
#   AGENTLS_API_BASE         the model's endpoint (optional)
#   the provider's key, e.g. OPENAI_API_KEY (or llm.api_key_env in your config)
#   AGENTLS_REVIEW_BASE      the pull request's base commit or ref (default: asked of
#                            `gh pr view` when posting)
#   AGENTLS_REVIEW_HEAD      its head commit (default HEAD; must be what is checked out)
#   AGENTLS_PR_NUMBER        the pull request's number (required unless not posting)
#   GITHUB_REPOSITORY        owner/name (set on runners; required unless not posting)
#   GH_TOKEN                 for `gh` (pull-requests: write); never given to the agent
#   AGENTLS_REVIEW_THRESHOLD the least severity commented on: low, medium (default), high,
#                            critical
#   AGENTLS_REVIEW_MAX_COMMENTS  the most line comments (default 10)
#   AGENTLS_REVIEW_POST      "false": write review.json but post nothing (default true)
#   AGENTLS_WORKSPACE        the repository (default: the current directory)
#   AGENTLS_OUTPUT_DIR       where the artifacts go (default: $RUNNER_TEMP or /tmp, /agentls-output)
#   AGENTLS_MAX_STEPS        loop iterations (default 15)
#   AGENTLS_STEP_TIMEOUT     seconds per step (default 300)
#   AGENTLS_RUN_TIMEOUT      seconds for the whole run (default 900)
#   AGENTLS_PYTHON           the Python agentls is installed in (default python3)
# Artifacts (masked): pr.diff, result.json, session.jsonl, review.json (what is posted).
# Outputs (also to $GITHUB_OUTPUT when set): status, comments.
# Exit: 0 reviewed (posted unless told not to), 1 failed (the run failed, its answer did
# not parse, the checkout changed, the post failed: nothing posted), 3 bad input.
set -euo pipefail

fail() { echo "agentls-review: $*" >&2; exit 3; }
stop() { echo "agentls-review: $*; no review is posted" >&2; exit 1; }

# shellcheck source=ci/safe-git.sh
source "$(dirname "${BASH_SOURCE[0]}")/safe-git.sh"

workspace="$(cd "${AGENTLS_WORKSPACE:-$PWD}" && pwd)"
[[ -n "${AGENTLS_MODEL:-}" ]] || fail "no model: set AGENTLS_MODEL (a litellm model name)"
post="${AGENTLS_REVIEW_POST:-true}"
if [[ "$post" == true ]]; then
  [[ "${AGENTLS_PR_NUMBER:-}" =~ ^[0-9]+$ ]] || fail "no pull request: set AGENTLS_PR_NUMBER"
  [[ "${GITHUB_REPOSITORY:-}" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] \
    || fail "no repository: set GITHUB_REPOSITORY (owner/name)"
  command -v gh >/dev/null 2>&1 || fail "posting a review needs the GitHub CLI (gh)"
  # A comment on a pull request carries no base commit: GitHub knows it.
  if [[ -z "${AGENTLS_REVIEW_BASE:-}" ]]; then
    AGENTLS_REVIEW_BASE="$(gh pr view "$AGENTLS_PR_NUMBER" --repo "$GITHUB_REPOSITORY" \
      --json baseRefOid --jq .baseRefOid </dev/null)" || fail "gh could not tell the base commit"
  fi
fi
[[ -n "${AGENTLS_REVIEW_BASE:-}" ]] || fail "no base: set AGENTLS_REVIEW_BASE (the base commit)"
threshold="${AGENTLS_REVIEW_THRESHOLD:-medium}"
case "$threshold" in low|medium|high|critical) ;; *) fail "bad AGENTLS_REVIEW_THRESHOLD: $threshold" ;; esac
max_comments="${AGENTLS_REVIEW_MAX_COMMENTS:-10}"
[[ "$max_comments" =~ ^[0-9]+$ ]] || fail "bad AGENTLS_REVIEW_MAX_COMMENTS: $max_comments"
agentls="${AGENTLS_BIN:-agentls}"
command -v "$agentls" >/dev/null 2>&1 || [[ -x "$agentls" ]] || fail "agentls is not installed"
python="${AGENTLS_PYTHON:-python3}"

cd "$workspace"
safe_git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
  || fail "$workspace is not a git repository (check it out first)"
base="$(safe_git rev-parse --verify --quiet "${AGENTLS_REVIEW_BASE}^{commit}")" \
  || fail "no commit $AGENTLS_REVIEW_BASE here (fetch the base: fetch-depth: 0)"
head="$(safe_git rev-parse --verify --quiet "${AGENTLS_REVIEW_HEAD:-HEAD}^{commit}")" \
  || fail "no commit ${AGENTLS_REVIEW_HEAD:-HEAD} here"
[[ "$(safe_git rev-parse HEAD)" == "$head" ]] \
  || fail "the checkout is not the pull request's head $head (check it out first)"

out="${AGENTLS_OUTPUT_DIR:-${RUNNER_TEMP:-/tmp}/agentls-output}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The raw diff places the comments (masking may fold lines); the model and the artifact
# get the masked one.
safe_git diff --no-color "$base...$head" >"$work/raw.diff"
"$agentls" mask --workspace "$workspace" <"$work/raw.diff" >"$out/pr.diff"
agents_md=()
[[ -f AGENTS.md ]] && agents_md=(--agents-md AGENTS.md)
"$python" -m agentls.pr_review prompt --diff "$out/pr.diff" ${agents_md[@]+"${agents_md[@]}"} \
  --base "$base" --head "$head" >"$work/prompt.txt"

before="$(safe_git status --porcelain -- . ':(exclude).agentls')"
run_name="review-$(date -u +%Y%m%d-%H%M%S)-$$"
args=(run "$(cat "$work/prompt.txt")" --workspace "$workspace" --model "$AGENTLS_MODEL"
      --agent review --dry-run --json --session "$run_name"
      --max-steps "${AGENTLS_MAX_STEPS:-15}" --timeout "${AGENTLS_STEP_TIMEOUT:-300}")
[[ -n "${AGENTLS_API_BASE:-}" ]] && args+=(--api-base "$AGENTLS_API_BASE")
set +e
# The agent never gets the job's token: it only reads.
env -u GH_TOKEN -u GITHUB_TOKEN -u GH_ENTERPRISE_TOKEN \
  timeout --signal=INT --kill-after=30 "${AGENTLS_RUN_TIMEOUT:-900}" \
  "$agentls" "${args[@]}" </dev/null >"$out/result.json"
code=$?
set -e
session_file="$workspace/.agentls/sessions/$run_name.jsonl"
if [[ -f "$session_file" ]]; then
  "$agentls" mask --workspace "$workspace" <"$session_file" >"$out/session.jsonl"
fi
status=failed
finish() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    { echo "status=$status"; echo "comments=${comments:-0}"; } >>"$GITHUB_OUTPUT"
  fi
}
trap 'finish; rm -rf "$work"' EXIT
[[ "$code" == 0 ]] || stop "the review run ended with exit code $code"
[[ "$(safe_git status --porcelain -- . ':(exclude).agentls')" == "$before" ]] \
  || stop "the review run changed the checkout"

"$python" -m agentls.pr_review review --result "$out/result.json" --diff "$work/raw.diff" \
  --commit "$head" --threshold "$threshold" --max-comments "$max_comments" \
  >"$work/review.json" || stop "the review agent's answer holds no valid findings"
"$agentls" mask --workspace "$workspace" <"$work/review.json" >"$out/review.json"
comments="$("$python" -c 'import json, sys; print(len(json.load(sys.stdin)["comments"]))' \
  <"$out/review.json")"

if [[ "$post" == true ]]; then
  gh api --method POST "repos/$GITHUB_REPOSITORY/pulls/$AGENTLS_PR_NUMBER/reviews" \
    --input "$out/review.json" >/dev/null || stop "gh api could not post the review"
  echo "agentls-review: posted a review with $comments comment(s) on #$AGENTLS_PR_NUMBER" >&2
else
  echo "agentls-review: review.json has $comments comment(s); not posted" >&2
fi
status=success
