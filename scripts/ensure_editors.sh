#!/usr/bin/env bash
# Install the third-party editors the e2e tests drive (Neovim 0.7, Emacs 28 + eglot).
# Idempotent: does nothing when they are present. Debian packages only.
set -euo pipefail

missing=()
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v emacs >/dev/null 2>&1 || missing+=(emacs-nox)
if ! ls /usr/share/emacs/site-lisp/elpa*/eglot* >/dev/null 2>&1 \
    && ! ls /usr/share/emacs/site-lisp/elpa-src/eglot* >/dev/null 2>&1; then
  missing+=(elpa-eglot)
fi
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

# apt allows one installer at a time: a second test process waits here, then finds it done.
exec 9>/tmp/agentls-apt.lock
flock 9
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "ensure_editors: installing ${missing[*]}" >&2
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
  $SUDO apt-get update >&2
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
