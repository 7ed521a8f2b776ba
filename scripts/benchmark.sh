#!/usr/bin/env bash
# The committed benchmarks: pipeline overhead vs the engine's tightest loop, driver memory against run
# length, client CPU per entity / per MB, short runs against long ones, the lean driver against the SDK
# driver (floor, profile, Azurite), and blob uploads beside AzCopy. Rewrites BENCHMARKS.md with the figures it measured.
#   ./scripts/benchmark.sh [seconds per throughput run, default 30]
#   ./scripts/benchmark.sh --driver-only   (section 5 alone — floor, profile, Azurite, AzCopy; the other sections are kept)
#   ./scripts/benchmark.sh --blob-peers    (section 5d alone: storagebench's blob upload beside AzCopy on one Azurite)
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
# perf (Debian's linux-perf) profiles the blob path in section 5b, kernel included; without it that profile is left out.
if [ ! -x /usr/bin/perf ]; then
  echo "Section 5b's blob profile needs perf; installing linux-perf (Debian package)..." >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq linux-perf; } >&2 \
    || echo "warning: could not install linux-perf; section 5b will say its blob profile was left out" >&2
fi
# AzCopy (section 5d): the real binary from the npm package pinned in package.json (installed above with Azurite).
# npm does not keep its mode bit; it links libsecret, which Debian ships as libsecret-1-0.
azcopy="$root/node_modules/@azure-tools/azcopy-linux/dist/bin/azcopy_linux_amd64"
if [ -f "$azcopy" ]; then
  [ -x "$azcopy" ] || chmod +x "$azcopy"
  if ! ldconfig -p 2>/dev/null | grep -q 'libsecret-1\.so\.0'; then
    echo "AzCopy needs libsecret-1-0 (Debian package); installing it..." >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsecret-1-0; } >&2 \
      || echo "warning: could not install libsecret-1-0; AzCopy may not start, and section 5d will say its runs failed" >&2
  fi
  export STORAGEBENCH_AZCOPY="$azcopy"
else
  echo "warning: AzCopy is not in node_modules (npm ci should have installed @azure-tools/azcopy-linux); section 5d is left out" >&2
fi
bench="$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll"
case "${1:-}" in
  --driver-only) exec dotnet "$bench" driver "$cli" "$root/BENCHMARKS.md" ;;
  --blob-peers) exec dotnet "$bench" blob-peers "$cli" "$root/BENCHMARKS.md" ;;
  --engine-only) exec dotnet "$bench" engine "$cli" "$root/BENCHMARKS.md" ;;
esac
exec dotnet "$bench" "$cli" "$root/BENCHMARKS.md" "${1:-30}"
