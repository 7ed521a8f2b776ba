#!/usr/bin/env bash
# The main job: a benchmark run against Azurite on loopback (or --connection-string), summary printed,
# summary.json, summary.md and summary.html written. Installs what it needs (Azurite from package.json) and
# builds the CLI first; the first time, it says what it installs and builds and how long that took.
#   ./scripts/bench.sh [storagebench run options: --spec FILE, --out DIR, --connection-string CS, --verbose, ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS
"$root/scripts/install.sh"
if (( SECONDS - started >= 2 )); then
  echo "Installed in $((SECONDS - started)) s." >&2
fi
cli=$("$root/scripts/build-cli.sh")
exec dotnet "$cli" run "$@"
