#!/usr/bin/env bash
# The tests: unit tests, integration tests against a real Azurite (started by the tests on free loopback
# ports), and end-to-end runs through the orchestrator. Installs what it needs first.
# --unit runs only the unit tests (Category=Unit), without installing or checking anything first.
# Fails when no test ran.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
results="$root/tests/StorageBench.Tests/TestResults"
if [ "${1:-}" = "--unit" ]; then
  # The fast inner loop: in-process unit tests only (no Azurite, browser, terminal or Function App check),
  # with its own results folder so it never touches a full run's.
  shift
  set -- --filter "Category=Unit" "$@"
  results="$results/unit"
else
  # Azurite's npm install and the Function App's build need nothing of each other: side by side, they take the longer of the two.
  "$root/scripts/install.sh" --test-tools &
  install=$!
  "$root/scripts/check-functions.sh" || { kill "$install" 2>/dev/null; exit 1; }
  wait "$install"
fi
rm -rf "$results"
status=0
dotnet test "$root/tests/StorageBench.Tests/StorageBench.Tests.csproj" -c Release --nologo \
  --logger "trx;LogFileName=results.trx" --logger "console;verbosity=normal" --results-directory "$results" "$@" || status=$?
# A filter or a broken discovery can make "dotnet test" pass with nothing run: treat that as failure.
trx="$results/results.trx"
[ -f "$trx" ] || { echo "error: no test results were written" >&2; exit 1; }
total=$(grep -o '<Counters [^>]*' "$trx" | grep -o 'total="[0-9]*"' | grep -o '[0-9]*')
passed=$(grep -o '<Counters [^>]*' "$trx" | grep -o ' passed="[0-9]*"' | grep -o '[0-9]*')
failed=$(grep -o '<Counters [^>]*' "$trx" | grep -o ' failed="[0-9]*"' | grep -o '[0-9]*')
if [ "${total:-0}" -eq 0 ]; then
  echo "error: no tests ran" >&2
  exit 1
fi
echo "tests: ${passed} passed, ${failed} failed"
# The console log is long and CI keeps only its tail: name the failures last, where they are read.
grep -o '<UnitTestResult [^>]*outcome="Failed"[^>]*' "$trx" | sed 's/.* testName="\([^"]*\)".*/failed: \1/' || true
exit "$status"
