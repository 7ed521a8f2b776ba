#!/usr/bin/env bash
# Runs a named query over the local runs (out/*/summary.json, written by ./scripts/bench.sh) and prints
# the table. Names: runs, throughput-trend, latency-trend, throttling-share, sweep-curve.
#   ./scripts/query.sh NAME [--results DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cli=$("$root/scripts/build-cli.sh")
exec dotnet "$cli" query "${@:-runs}"
