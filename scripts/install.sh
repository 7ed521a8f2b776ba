#!/usr/bin/env bash
# Installs the project's own tools: Azurite (pinned in package.json / package-lock.json) into node_modules,
# and with --browser Debian's Chromium (the report test opens summary.html in it).
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
if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null; then
  echo "Installing Chromium (Debian package) for the report test..." >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
fi
