# Sourced by the CI scripts (run-agent.sh, review-pr.sh): how they run git.
#
# How these scripts run git: with the settings agentls's own git gets (indexer/safe_git.py;
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
