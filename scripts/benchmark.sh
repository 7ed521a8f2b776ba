#!/usr/bin/env bash
# The committed benchmarks: pipeline overhead vs the engine's tightest loop, driver memory against run
# length, client CPU per entity / per MB, short runs against long ones, the lean driver against the SDK
# driver (floor, profile, Azurite; the read and page paths too), and blob uploads and downloads beside AzCopy. Rewrites the
# sections of BENCHMARKS.md it measured and keeps the others (measured by hand, or by another mode below).
#   ./scripts/benchmark.sh [seconds per throughput run, default 30]
#   ./scripts/benchmark.sh --driver-only   (section 5 alone — floor, profile, Azurite, AzCopy; the other sections are kept)
#   ./scripts/benchmark.sh --blob-peers    (section 5d alone: storagebench's blob upload beside AzCopy on one Azurite)
#   ./scripts/benchmark.sh --read-peers    (sections 5e-5f alone: the read and page paths lean vs SDK on the floor and
#                                           Azurite, and storagebench's blob download beside AzCopy's)
#   ./scripts/benchmark.sh --download-peers (section 5f alone: downloads beside AzCopy and the JS SDK)
#   ./scripts/benchmark.sh --engine-only   (sections 7-8 alone, the engine's cost at a run's ends and CPU while it waits)
#   ./scripts/benchmark.sh --soak [MINUTES] [--sample-seconds N]
#                          (section 11 alone: one steady run of MINUTES, default 30, against the floor server, the CLI's
#                           resident set and GC heap sampled every N s, default 10; all samples in out/soak/)
#   ./scripts/benchmark.sh --segment-history
#                          (section 12 alone: replay time and history size of 16 segmented slices at 6 and 60 segments
#                           a slice, on the real engine and Azurite in the benchmark's own process)
#   --fuzz-minutes N   first fuzz the input surface (specs, command line, API body: tests/.../InputFuzzTests.cs) for
#                      N minutes, default 10 on a plain run (0: skip); a single-section run fuzzes only when given this
#   --fuzz-only        the fuzzing alone; figures (cases tried, unhandled exceptions) in out/fuzz/report.txt
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fuzz_minutes="" mode="all" seconds=30 soak_minutes=30 sample_seconds=10
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-minutes) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "error: --fuzz-minutes: \"${2:-}\" must be a whole number of minutes" >&2; exit 2; }
                    fuzz_minutes="$2"; shift 2 ;;
    --fuzz-only) mode="fuzz"; shift ;;
    --driver-only) mode="driver"; shift ;;
    --blob-peers) mode="blob-peers"; shift ;;
    --read-peers) mode="read-peers"; shift ;;
    --download-peers) mode="download-peers"; shift ;;
    --engine-only) mode="engine"; shift ;;
    --segment-history) mode="segment-history"; shift ;;
    --soak) mode="soak"; shift
            if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
              [ "$1" -ge 2 ] || { echo "error: --soak: \"$1\" must be at least 2 minutes (minute 1 is the baseline)" >&2; exit 2; }
              soak_minutes="$1"; shift
            fi ;;
    --sample-seconds) [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "${2}" -ge 1 ] || { echo "error: --sample-seconds: \"${2:-}\" must be a whole number of seconds, at least 1" >&2; exit 2; }
                      sample_seconds="$2"; shift 2 ;;
    *) [[ "$1" =~ ^[0-9]+$ ]] || { echo "error: \"$1\" is not an option (--driver-only, --blob-peers, --read-peers, --download-peers, --engine-only, --segment-history, --soak [MINUTES], --sample-seconds N, --fuzz-minutes N, --fuzz-only) or seconds per run" >&2; exit 2; }
       seconds="$1"; shift ;;
  esac
done
if [ -z "$fuzz_minutes" ]; then
  if [ "$mode" = "all" ] || [ "$mode" = "fuzz" ]; then fuzz_minutes=10; else fuzz_minutes=0; fi
fi
# Fuzzing: the property tests of InputFuzzTests, each for its share of the time from random seeds (CsCheck), on every core.
# Any unhandled exception fails the test, which prints the shrunk case; the figures are appended to the report.
if [ "$fuzz_minutes" -gt 0 ]; then
  mkdir -p "$root/out/fuzz"
  report="$root/out/fuzz/report.txt"
  : > "$report"
  echo "Fuzzing the input surface for $fuzz_minutes min..." >&2
  if ! build_log=$(dotnet build "$root/tests/StorageBench.Tests/StorageBench.Tests.csproj" -c Release --nologo -v quiet 2>&1); then echo "$build_log" >&2; exit 1; fi
  fuzz_status=0
  STORAGEBENCH_FUZZ_SECONDS=$((fuzz_minutes * 60)) STORAGEBENCH_FUZZ_REPORT="$report" \
    dotnet test "$root/tests/StorageBench.Tests/StorageBench.Tests.csproj" -c Release --no-build --nologo \
      --filter "FullyQualifiedName~InputFuzzTests" --logger "console;verbosity=normal" > "$root/out/fuzz/test.log" 2>&1 || fuzz_status=$?
  cat "$report" >&2
  if [ "$fuzz_status" -ne 0 ]; then
    echo "error: fuzzing found an unhandled exception or a wrong answer; see out/fuzz/test.log" >&2
    exit 1
  fi
fi
if [ "$mode" = "fuzz" ]; then
  exit 0
fi
"$root/scripts/install.sh"
# Section 12 runs the engine in its own process on its own Azurite: no CLI, none of the tools below.
if [ "$mode" = "segment-history" ]; then
  if ! build_log=$(dotnet build "$root/tests/StorageBench.Benchmarks/StorageBench.Benchmarks.csproj" -c Release --nologo -v quiet 2>&1); then echo "$build_log" >&2; exit 1; fi
  exec dotnet "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll" segment-history "$root/BENCHMARKS.md"
fi
# The soak needs only the CLI, the floor server and the hub store's Azurite: none of the tools below.
if [ "$mode" = "soak" ]; then
  cli=$("$root/scripts/build-cli.sh")
  if ! build_log=$(dotnet build "$root/tests/StorageBench.Benchmarks/StorageBench.Benchmarks.csproj" -c Release --nologo -v quiet 2>&1); then echo "$build_log" >&2; exit 1; fi
  exec dotnet "$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll" soak "$cli" "$root/BENCHMARKS.md" "$soak_minutes" "$sample_seconds"
fi
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
# AzCopy (sections 5d, 5f): the real binary from the npm package pinned in package.json (installed above with Azurite).
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
  echo "warning: AzCopy is not in node_modules (npm ci should have installed @azure-tools/azcopy-linux); sections 5d and 5f are left out" >&2
fi
# The JS SDK peer of section 5f: its npm packages pinned in its own package.json (not the root one CI installs).
peer="$root/tests/StorageBench.Benchmarks/js-peer"
if npm ci --prefix "$peer" --no-audit --no-fund >/dev/null 2>&1; then
  export STORAGEBENCH_JS_PEER="$peer"
else
  echo "warning: could not install the JS SDK peer's packages (npm ci in $peer); section 5f leaves it out" >&2
fi
bench="$root/tests/StorageBench.Benchmarks/bin/Release/net10.0/StorageBench.Benchmarks.dll"
case "$mode" in
  driver) exec dotnet "$bench" driver "$cli" "$root/BENCHMARKS.md" ;;
  blob-peers) exec dotnet "$bench" blob-peers "$cli" "$root/BENCHMARKS.md" ;;
  read-peers) exec dotnet "$bench" read-peers "$cli" "$root/BENCHMARKS.md" ;;
  download-peers) exec dotnet "$bench" download-peers "$cli" "$root/BENCHMARKS.md" ;;
  engine) exec dotnet "$bench" engine "$cli" "$root/BENCHMARKS.md" ;;
esac
exec dotnet "$bench" "$cli" "$root/BENCHMARKS.md" "$seconds"
