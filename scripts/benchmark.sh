#!/usr/bin/env bash
# The committed benchmarks: pipeline overhead vs the engine's tightest loop, driver memory against run
# length, client CPU per entity / per MB, short runs against long ones, the lean driver against the SDK
# driver (floor server, profile, Azurite). Rewrites BENCHMARKS.md with the figures it measured.
#   ./scripts/benchmark.sh [seconds per throughput run, default 30]
#   ./scripts/benchmark.sh --driver-only   (section 5 alone, the lean and SDK drivers; sections 1-4 are kept)
#   ./scripts/benchmark.sh --engine-only   (sections 7-8 alone, the engine's cost at a run's ends and CPU while it waits)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install.sh"
# The CLI processes it starts are the published CLI, as ./scripts/bench.sh runs it.
cli=$("$root/scripts/build-cli.sh")
# Quiet unless the build fails.
if ! build_log=$(dotnet build "$root/tests/StorageBench.Benchmarks/StorageBench.Benchmarks.csproj" -c Release --nologo -v quiet 2>&1); then echo "$build_log" >&2; exit 1; fi
# dotnet-trace, a dotnet tool from the package feed, profiles section 5; without it that profile is left out.
tools="${TMPDIR:-/tmp}/storagebench-tools"
if [ -x "$tools/dotnet-trace" ] || dotnet tool install --tool-path "$tools" dotnet-trace >/dev/null 2>&1; then
  export STORAGEBENCH_DOTNET_TRACE="$tools/dotnet-trace"
fi
if [ "${1:-}" = "--driver-only" ]; then
  exec dotnet "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll" driver "$cli" "$root/BENCHMARKS.md"
fi
if [ "${1:-}" = "--engine-only" ]; then
  exec dotnet "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll" engine "$cli" "$root/BENCHMARKS.md"
fi
exec dotnet "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll" "$cli" "$root/BENCHMARKS.md" "${1:-30}"
