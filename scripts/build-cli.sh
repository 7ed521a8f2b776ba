#!/usr/bin/env bash
# Publishes the CLI compiled ahead of time into .build/cli and prints the path of storagebench.dll, so a short run is as
# fast as a long one (BENCHMARKS.md sections 4 and 10): self-contained, with the runtime and the CLI compiled into one
# ReadyToRun image (composite), which holds the generic code over the runtime's types that per-assembly images cannot
# (async state machines, collections of the CLI's types) and the JIT would otherwise compile at every start.
# `dotnet .build/cli/storagebench.dll` and `.build/cli/storagebench` both run it on the runtime inside.
# Quiet unless the build fails, or it is the first build (which says what it builds and how long it took).
#   ./scripts/build-cli.sh           publish; prints .build/cli/storagebench.dll
#   ./scripts/build-cli.sh --pack    also (only) packs the `storagebench` .NET tool into .build/packages, ReadyToRun
#                                    per assembly (a tool runs on the machine's shared runtime); install it with:
#                                    dotnet tool update --global StorageBench.Cli --add-source .build/packages
# The tool's runtimeconfig.json carries the CLI's runtime settings (TieredPGO off, CallCountingDelayMs=10, CallCountThreshold=200), as
# .build/cli's does.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project="$root/src/StorageBench.Cli/StorageBench.Cli.csproj"
started=$SECONDS
# This machine's runtime, named (-r) rather than --use-current-runtime: a runtime named on the command line is not passed on
# to the libraries the CLI references, so they are not compiled again for it (the tests' build has compiled them), and the
# CLI's own restore already holds it (RuntimeIdentifiers in the project), so publish and pack need no restore of their own.
restore() {
  local log
  rid=$(dotnet --info | awk '/^ *RID:/ { print $2; exit }')
  if ! log=$(dotnet restore "$project" --nologo -v quiet 2>&1); then
    echo "$log" >&2
    exit 1
  fi
}

# One build of the CLI at a time (publish or pack): two started together, say two bench.sh on a fresh clone, would
# compile into the same folders; the second waits here, and finds the CLI the first published.
lock() {
  mkdir -p "$root/.build"
  exec 9>"$root/.build/build.lock"
  flock 9
}

# The publish (one composite image) and the pack (an image per assembly) compile into the same folder of ReadyToRun images,
# and each would take the other's as up to date: each starts from none (a mix of the two crashes the runtime).
fresh_images() {
  rm -rf "$(dirname "$project")/obj/Release/net10.0/$rid/R2R"
}

if [ "${1:-}" = "--pack" ]; then
  lock
  packages="$root/.build/packages"
  # A new version each time: `dotnet tool update` replaces the installed tool only with a higher version, and
  # NuGet's cache would hand back an older package of the same version.
  version="0.1.0.$(date -u +%s)"
  echo "Packing the storagebench tool (ReadyToRun, $version) into .build/packages..." >&2
  rm -f "$packages"/StorageBench.Cli.*.nupkg
  restore
  fresh_images
  if ! log=$(dotnet pack "$project" -c Release -r "$rid" --no-restore -p:PublishReadyToRun=true -p:PackageVersion="$version" \
      -o "$packages" --nologo -v quiet 2>&1); then
    echo "$log" >&2
    exit 1
  fi
  echo "Packed .build/packages/StorageBench.Cli.$version.nupkg in $((SECONDS - started)) s." >&2
  exit 0
fi

out="$root/.build/cli"
stamp="$out/.published-from"
# dotnet publish takes tens of seconds even when nothing changed: skip it when no input is newer than the last
# publish. The stamp is taken before publishing, so an edit made while it runs is seen next time. A folder's time
# changes when a file in it is added or deleted, so those count too. The stamp holds the commit, which the
# version command prints: a new commit publishes again.
inputs=("$root/src" "$root/Directory.Build.props" "$root/Directory.Packages.props" "$root/global.json" "$root/scripts/build-cli.sh")
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || true)
published() {
  [ -f "$out/storagebench.dll" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$commit" ] && \
    [ -z "$(find "${inputs[@]}" \( -name bin -o -name obj \) -prune -o -newer "$stamp" -print -quit 2>/dev/null)" ]
}
if published; then
  echo "$out/storagebench.dll"
  exit 0
fi
lock
if published; then
  echo "$out/storagebench.dll"
  exit 0
fi
mkdir -p "$out"
echo "$commit" > "$stamp.next"
first=""
if [ ! -f "$out/storagebench.dll" ]; then
  first=1
  echo "Building the CLI (dotnet publish, self-contained, composite ReadyToRun) into .build/cli; the first build restores NuGet packages and takes two or three minutes..." >&2
fi
restore
fresh_images
if ! log=$(dotnet publish "$project" -c Release -r "$rid" --self-contained true --no-restore -p:PublishReadyToRunComposite=true \
    -o "$out" --nologo -v quiet 2>&1); then
  echo "$log" >&2
  exit 1
fi
mv "$stamp.next" "$stamp"
if [ -n "$first" ]; then
  echo "Built the CLI in $((SECONDS - started)) s." >&2
fi
echo "$out/storagebench.dll"
