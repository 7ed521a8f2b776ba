#!/usr/bin/env bash
# The main job: a benchmark run against Azurite on loopback (or --connection-string), summary printed,
# summary.json, summary.md and summary.html written. Installs what it needs (Azurite from package.json) first.
#   ./scripts/bench.sh [--spec FILE] [--out DIR] [--connection-string CS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install.sh"
# Quiet unless the build fails.
if ! build_log=$(dotnet build "$root/src/StorageBench.Cli/StorageBench.Cli.csproj" -c Release --nologo -v quiet 2>&1); then echo "$build_log" >&2; exit 1; fi
exec dotnet "$root/src/StorageBench.Cli/bin/Release/net10.0/storagebench.dll" run "$@"
