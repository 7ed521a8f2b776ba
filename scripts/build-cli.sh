#!/usr/bin/env bash
# Publishes the CLI compiled ahead of time (ReadyToRun, for this machine's runtime) into .build/cli and prints
# the path of storagebench.dll, so a short run is as fast as a long one (BENCHMARKS.md section 4).
# Quiet unless the build fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/.build/cli"
if ! log=$(dotnet publish "$root/src/StorageBench.Cli/StorageBench.Cli.csproj" -c Release --use-current-runtime --self-contained false \
    -o "$out" --nologo -v quiet 2>&1); then
  echo "$log" >&2
  exit 1
fi
echo "$out/storagebench.dll"
