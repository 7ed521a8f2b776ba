#!/usr/bin/env bash
# Runs a named query over the local runs (out/*/summary.json, written by ./scripts/bench.sh) and prints
# the table. Names: runs, throughput-trend, latency-trend, throttling-share, sweep-curve.
#   ./scripts/query.sh NAME [--results DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# Quiet unless the build fails.
if ! build_log=$(dotnet build "$root/src/StorageBench.Cli/StorageBench.Cli.csproj" -c Release --nologo -v quiet 2>&1); then echo "$build_log" >&2; exit 1; fi
exec dotnet "$root/src/StorageBench.Cli/bin/Release/net10.0/storagebench.dll" query "${@:-runs}"
