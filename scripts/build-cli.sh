#!/usr/bin/env bash
# Publishes the CLI compiled ahead of time (ReadyToRun, for this machine's runtime) into .build/cli and prints
# the path of storagebench.dll, so a short run is as fast as a long one (BENCHMARKS.md section 4).
# Quiet unless the build fails, or it is the first build (which says what it builds and how long it took).
#   ./scripts/build-cli.sh           publish; prints .build/cli/storagebench.dll
#   ./scripts/build-cli.sh --pack    also (only) packs the `storagebench` .NET tool into .build/packages, ReadyToRun
#                                    the same way; install it with: dotnet tool update --global StorageBench.Cli --add-source .build/packages
# The tool's runtimeconfig.json carries the CLI's runtime settings (TieredPGO off, CallCountingDelayMs=0), so the
# installed `storagebench` starts and runs as .build/cli does.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="$root/src/StorageBench.Cli/StorageBench.Cli.csproj"
started=$SECONDS

if [ "${1:-}" = "--pack" ]; then
  packages="$root/.build/packages"
  # A new version each time: `dotnet tool update` replaces the installed tool only with a higher version, and
  # NuGet's cache would hand back an older package of the same version.
  version="0.1.0.$(date -u +%s)"
  echo "Packing the storagebench tool (ReadyToRun, $version) into .build/packages..." >&2
  rm -f "$packages"/StorageBench.Cli.*.nupkg
  if ! log=$(dotnet pack "$project" -c Release --use-current-runtime -p:PublishReadyToRun=true -p:PackageVersion="$version" \
      -o "$packages" --nologo -v quiet 2>&1); then
    echo "$log" >&2
    exit 1
  fi
  echo "Packed .build/packages/StorageBench.Cli.$version.nupkg in $((SECONDS - started)) s." >&2
  exit 0
fi

out="$root/.build/cli"
first=""
if [ ! -f "$out/storagebench.dll" ]; then
  first=1
  echo "Building the CLI (dotnet publish, ReadyToRun) into .build/cli; the first build restores NuGet packages and takes a minute or two..." >&2
fi
if ! log=$(dotnet publish "$project" -c Release --use-current-runtime --self-contained false \
    -o "$out" --nologo -v quiet 2>&1); then
  echo "$log" >&2
  exit 1
fi
if [ -n "$first" ]; then
  echo "Built the CLI in $((SECONDS - started)) s." >&2
fi
echo "$out/storagebench.dll"
