#!/usr/bin/env bash
# The main job: a benchmark run against Azurite on loopback (or --connection-string), summary printed,
# summary.json and summary.md written. Installs what it needs (Azurite from package.json) first.
#   ./scripts/bench.sh [--spec FILE] [--out DIR] [--connection-string CS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install.sh"
dotnet build "$root/src/StorageBench.Cli/StorageBench.Cli.csproj" -c Release --nologo -v quiet -clp:ErrorsOnly >&2
exec dotnet "$root/src/StorageBench.Cli/bin/Release/net10.0/storagebench.dll" run "$@"
