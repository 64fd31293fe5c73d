#!/usr/bin/env bash
# Install bubblewrap (bwrap), which sandboxes execute_command and python_executor.
# Idempotent: does nothing when bwrap is present. Debian package only.
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
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
echo "ensure_bwrap: installing bubblewrap" >&2
# Try without refreshing the lists first: an update is slow and often unneeded.
if ! $SUDO apt-get install -y --no-install-recommends bubblewrap >&2; then
  $SUDO apt-get update >&2
  $SUDO apt-get install -y --no-install-recommends bubblewrap >&2
fi
command -v bwrap >/dev/null 2>&1
