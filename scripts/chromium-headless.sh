#!/usr/bin/env bash
# Opens a local HTML file (summary.html) in headless Chromium, offline and without a profile, with any extra
# Chromium arguments: --dump-dom prints the rendered page, --screenshot=FILE --window-size=W,H takes a picture.
# Console messages go to stderr ("INFO:CONSOLE..."). Used by the report test and to make docs/ screenshots:
#   ./scripts/chromium-headless.sh out/<runId>/summary.html --screenshot="$PWD/docs/report.png" --window-size=1200,2400
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FILE.html [chromium args...]" >&2; exit 2; }
command -v chromium >/dev/null || { echo "error: chromium not found: ./scripts/install.sh --test-tools installs it" >&2; exit 1; }
file="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --enable-logging=stderr --v=0 \
  --user-data-dir="$profile" "$@" "file://$file"
