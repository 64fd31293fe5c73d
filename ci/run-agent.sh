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

# How this script runs git: with the settings agentls's own git gets (indexer/safe_git.py;
# a test keeps the lists equal). The agent's sandboxed commands may have written into the
# checkout (hooks in .githooks/ or .husky/, a .gitattributes), so no hook, fsmonitor,
# external diff, textconv or filter driver of the repository runs, and git gets only the
# variables it needs: no API key, no token.
SAFE_GIT_OPTIONS=(--no-optional-locks
  -c core.fsmonitor=false
  -c core.untrackedCache=false
  -c core.hooksPath=/dev/null
  -c core.pager=cat
  -c core.askPass=
  -c credential.helper=
  -c protocol.allow=never
  -c commit.gpgSign=false
  -c tag.gpgSign=false
  -c gc.auto=0
  -c maintenance.auto=false)
SAFE_GIT_ENV=(PATH HOME USER LOGNAME LANG LANGUAGE LC_ALL LC_CTYPE LC_MESSAGES LC_COLLATE
  LC_NUMERIC LC_TIME TZ TMPDIR XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM
  GIT_CONFIG_NOSYSTEM)

# git_env_run [NAME=value ...] -- git-arguments: git with the settings above, in an
# environment of only the variables named above, the fixed ones and the NAME=value given.
git_env_run() {
  local -a keep=() added=() dirs=()
  local var dir path=""
  for var in "${SAFE_GIT_ENV[@]}"; do
    if [[ "$var" != PATH && -n "${!var+x}" ]]; then keep+=("$var=${!var}"); fi
  done
  # PATH without relative entries: a git planted in the checkout is never the one found.
  IFS=: read -ra dirs <<<"${PATH:-/usr/bin:/bin}"
  for dir in ${dirs[@]+"${dirs[@]}"}; do
    if [[ "$dir" == /* ]]; then path+="${path:+:}$dir"; fi
  done
  keep+=("PATH=${path:-/usr/bin:/bin}")
  while [[ "$1" != -- ]]; do added+=("$1"); shift; done
  shift
  env -i ${keep[@]+"${keep[@]}"} GIT_TERMINAL_PROMPT=0 GIT_PAGER=cat PAGER=cat \
    GIT_OPTIONAL_LOCKS=0 ${added[@]+"${added[@]}"} git "${SAFE_GIT_OPTIONS[@]}" "$@" </dev/null
}

# GIT_CONFIG_* words (NUL-separated) that empty each filter driver (clean, smudge,
# process) the repository's own configuration defines: any scope but the user's system
# and global files. A .gitattributes in the checkout picks drivers by name; these
# variables take any name as it is and win over every configuration file.
filters_off() {
  local scope entry key name item value count=0 seen=" "
  while IFS= read -r -d '' scope && IFS= read -r -d '' entry; do
    [[ "$scope" == system || "$scope" == global ]] && continue
    key="${entry%%$'\n'*}"
    name="${key#filter.}"
    name="${name%.*}"
    [[ -n "$name" && "$seen" != *" $name "* ]] || continue
    seen+="$name "
    for item in clean smudge process required; do
      value=""
      [[ "$item" == required ]] && value=false
      printf 'GIT_CONFIG_KEY_%d=filter.%s.%s\0GIT_CONFIG_VALUE_%d=%s\0' \
        "$count" "$name" "$item" "$count" "$value"
      count=$((count + 1))
    done
  done < <(git_env_run -- config --show-scope --null --get-regexp '^filter\.' || true)
  printf 'GIT_CONFIG_COUNT=%d\0' "$count"
}

# Every git of this script but the push: safe_git SUBCOMMAND ARGS...
safe_git() {
  local -a filters=() extra=()
  local word sub="$1"
  shift
  while IFS= read -r -d '' word; do filters+=("$word"); done < <(filters_off)
  case "$sub" in
    commit)
      extra=(--no-verify)
      # The identity, as the variables name it or agentls's.
      filters+=("GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-agentls}"
        "GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-agentls@users.noreply.github.com}"
        "GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-${GIT_AUTHOR_NAME:-agentls}}"
        "GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-${GIT_AUTHOR_EMAIL:-agentls@users.noreply.github.com}}")
      ;;
    diff) extra=(--no-ext-diff --no-textconv) ;;
  esac
  git_env_run "${filters[@]}" -- "$sub" ${extra[@]+"${extra[@]}"} "$@"
}

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
