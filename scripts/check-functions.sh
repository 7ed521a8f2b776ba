#!/usr/bin/env bash
# Builds the Function App (functions/StorageBench.Functions) against the real Functions worker and Durable packages, its
# WorkerExtensions project (the host-side Durable extension) and generated functions.metadata included. Quiet unless
# something fails; any error (or warning: they are errors here) fails it, and so fails scripts/test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! dotnet build functions/StorageBench.Functions/StorageBench.Functions.csproj -c Release --nologo -v q >"$log" 2>&1; then
  cat "$log" >&2
  echo "error: the Function App does not build" >&2
  exit 1
fi
echo "Function App: built against the real Functions and Durable packages"
