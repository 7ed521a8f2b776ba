#!/usr/bin/env bash
# The committed benchmarks: pipeline overhead vs the engine's tightest loop, driver memory against run
# length, client CPU per entity / per MB. Rewrites BENCHMARKS.md with the figures it measured.
#   ./scripts/benchmark.sh [seconds per throughput run, default 30]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install.sh"
dotnet build "$root/tests/StorageBench.Benchmarks/StorageBench.Benchmarks.csproj" -c Release --nologo -v quiet -clp:ErrorsOnly >&2
exec dotnet "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll" \
  "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/storagebench.dll" "$root/BENCHMARKS.md" "${1:-30}"
