#!/usr/bin/env bash
# Compile-checks the Function App (functions/StorageBench.Functions). With its packages obtainable, it builds the
# real project; otherwise (this machine's mirror lacks them) it compiles the same sources against the compile-only
# surface in tests/StorageBench.Functions.CompileSurface. Quiet unless something fails; any compile error fails it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Prints the log and fails: a compile error (or warning: they are errors here) must stop the caller.
fail() { cat "$log" >&2; echo "error: $1" >&2; exit 1; }

if timeout 180 dotnet restore functions/StorageBench.Functions/StorageBench.Functions.csproj --nologo -v q >"$log" 2>&1; then
  dotnet build functions/StorageBench.Functions/StorageBench.Functions.csproj -c Release --no-restore --nologo -v q >"$log" 2>&1 \
    || fail "the Function App does not build"
  echo "Function App: built against the real packages"
else
  # First restore error, without the project path in front of it.
  reason=$(grep -m1 -oE 'error [A-Z]+[0-9]+:.*' "$log" || echo "restore failed or timed out")
  reason="${reason% \[*\]}"
  dotnet build tests/StorageBench.Functions.CompileCheck/StorageBench.Functions.CompileCheck.csproj -c Release --nologo -v q >"$log" 2>&1 \
    || fail "the Function App's sources do not compile against tests/StorageBench.Functions.CompileSurface"
  echo "Function App: real packages not obtainable here ($reason); compiled against the compile-only surface in tests/StorageBench.Functions.CompileSurface"
fi
