#!/usr/bin/env bash
# The main job: a benchmark run against Azurite on loopback (or --connection-string), summary printed,
# summary.json, summary.md and summary.html written. Installs what it needs (Azurite from package.json) first.
#   ./scripts/bench.sh [--spec FILE] [--out DIR] [--connection-string CS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install.sh"
cli=$("$root/scripts/build-cli.sh")
exec dotnet "$cli" run "$@"
