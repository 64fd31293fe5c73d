#!/usr/bin/env bash
# Every Debian package the test suite needs, installed in ONE apt-get run (two apt-get
# processes at once fail on dpkg's lock): Neovim and Emacs eglot (real editor tests),
# bubblewrap (the command sandbox), Chromium and the build deps of code-server (the VS Code
# e2e). Idempotent; each scripts/ensure_*.sh still checks its own part.
set -euo pipefail

missing=()
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v emacs >/dev/null 2>&1 || missing+=(emacs-nox)
ls /usr/share/emacs/site-lisp/elpa*/eglot* >/dev/null 2>&1 \
  || ls /usr/share/emacs/site-lisp/elpa-src/eglot* >/dev/null 2>&1 || missing+=(elpa-eglot)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
dpkg -s pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
[ "${#missing[@]}" -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "ensure_system_packages: installing ${missing[*]}" >&2
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  $SUDO apt-get update >&2
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
