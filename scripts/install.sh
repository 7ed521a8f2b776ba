#!/usr/bin/env bash
# Installs the project's own tools: Azurite (pinned in package.json / package-lock.json) into node_modules,
# and with --test-tools the Debian packages some tests drive: Chromium (the report test opens summary.html in
# it) and tmux (the progress test watches the CLI in a real terminal).
# Idempotent: does nothing when what it would install is already there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v node >/dev/null || { echo "error: Node.js is required (for Azurite)" >&2; exit 1; }
command -v dotnet >/dev/null || { echo "error: the .NET 10 SDK is required" >&2; exit 1; }
if [ ! -x node_modules/.bin/azurite ] || ! cmp -s package-lock.json node_modules/.package-lock.json.copy 2>/dev/null; then
  echo "Installing Azurite from package-lock.json..." >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json node_modules/.package-lock.json.copy
fi
if [ "${1:-}" = "--test-tools" ]; then
  missing=""
  command -v chromium >/dev/null || missing="$missing chromium"
  command -v tmux >/dev/null || missing="$missing tmux"
  if [ -n "$missing" ]; then
    echo "Installing$missing (Debian packages) for the tests..." >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    # shellcheck disable=SC2086
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing; } >&2 \
      || echo "warning: could not install$missing; the tests that need them will say they were skipped and why" >&2
  fi
fi
