#!/usr/bin/env bash
# BENCHMARKS.md section 10: a 200-entity run's whole process beside the JS SDK peer's (insert.mjs), on one in-memory
# Azurite, alternated round by round: the peer, then each CLI on a fresh hub store folder (a user's first run), from a
# cold hub store (the folder of an earlier run, its Azurite stopped, as after the store's idle time), and with its hub
# store already up. Two CLIs (a before and an after build's storagebench.dll) or one.
#   npm ci --prefix tests/StorageBench.Benchmarks/js-peer-tables    (once)
#   tests/StorageBench.Benchmarks/js-peer-tables/alternate.sh ROUNDS CLI [CLI]     (CLI: a storagebench.dll, or an executable storagebench)
# A CLI whose store stops with its last process (before section 10's change) is kept warm by a process that holds the
# store's lock, as another storagebench process would. Connection strings go by environment, never on a command line.
# Each CLI run prints when its lines appeared (seconds from its start; from its --verbose output): store = the hub store's
# Azurite answered (cold only), started = "Run … started" (hub created, worker started), ended = the run seen ended,
# report = the first report line (after the worker's stop and the hub's delete), exit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
rounds=$1; shift
work=$(mktemp -d)
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
bp=$(free_port); qp=$(free_port); tp=$(free_port)
node_modules/.bin/azurite --inMemoryPersistence --disableTelemetry --loose --silent --skipApiVersionCheck --blobHost 127.0.0.1 \
  --blobPort "$bp" --queueHost 127.0.0.1 --queuePort "$qp" --tableHost 127.0.0.1 --tablePort "$tp" >/dev/null 2>&1 &
target=$!
holders=()
stop() {
  kill "$target" "${holders[@]}" 2>/dev/null || true
  # A store that outlives its last process (section 10) is stopped here; one that stops by itself may be gone already.
  for state in "$work"/warm*/azurite.json; do
    pid=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["Pid"])' "$state" 2>/dev/null) && kill -- "-$pid" 2>/dev/null || true
  done
}
trap stop EXIT
for port in $bp $qp $tp; do until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do sleep 0.05; done; done
account="AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
export STORAGEBENCH_TARGET_CONNECTION_STRING="DefaultEndpointsProtocol=http;$account;BlobEndpoint=http://127.0.0.1:$bp/devstoreaccount1;QueueEndpoint=http://127.0.0.1:$qp/devstoreaccount1;TableEndpoint=http://127.0.0.1:$tp/devstoreaccount1;"
export PEER_CONNECTION_STRING="$STORAGEBENCH_TARGET_CONNECTION_STRING"
spec="$work/spec.json"
echo '{ "scenario": "short", "startDelaySeconds": 1, "tableInsert": { "entityCount": 200, "batchSize": 100 } }' > "$spec"

# seconds of one command's whole process
timed() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || echo "failed: $*" >&2; e=$(date +%s.%N); echo "$e - $s" | bc; }
# marks() reads a run's merged output and prints when its lines came, in seconds from $1 (the run's start)
marks() {
  python3 -c '
import re, sys, time
t0, marks = float(sys.argv[1]), {}
patterns = [("store", r"^Hub store: Azurite on disk"), ("started", r"^Run \S+ started"), ("ended", r"3002 \S+: Run \S+ ended")]
for line in sys.stdin:
    now = time.time() - t0
    if "ended" in marks and "report" not in marks:
        marks["report"] = now
    for name, pattern in patterns:
        if name not in marks and re.search(pattern, line):
            marks[name] = now
print(" ".join(f"{k}={v:.2f}" for k, v in marks.items()), f"exit={time.time() - t0:.2f}")' "$1"
}
# a storagebench.dll runs on the shared runtime; anything else (a self-contained build's storagebench) is run as it is
launcher() { case $1 in *.dll) echo dotnet ;; *) echo env ;; esac; }
run() {
  local s; s=$(date +%s.%N)
  STORAGEBENCH_HUB_DIR=$1 STORAGEBENCH_HUB_IDLE_SECONDS=$2 $(launcher "$3") "$3" run --spec "$spec" --out "$work/out" --force --verbose 2>&1 | marks "$s"
}

# Cold stores: one earlier run each, which stopped its Azurite as it ended (idle time 0). Warm stores: started once; held
# open by a lock holder so a store that stops with its last process stays up too.
stopped() { for _ in $(seq 100); do [ -e "$1/azurite.json" ] || return 0; sleep 0.1; done; }
i=0
for cli in "$@"; do
  run "$work/cold$i" 0 "$cli" >/dev/null
  run "$work/warm$i" 900 "$cli" >/dev/null
  python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_SH); time.sleep(1e9)' "$work/warm$i/users.lock" &
  holders+=($!)
  i=$((i + 1))
done
clis=("$@")
order=$(seq 0 $(($# - 1)))
for r in $(seq 1 "$rounds"); do
  echo "round $r load $(cut -d' ' -f1 /proc/loadavg) peer $(timed node tests/StorageBench.Benchmarks/js-peer-tables/insert.mjs 200)"
  # Each round in the other order: a CLI run second in a round ran 0.03-0.06 s slower than the same build run first.
  for i in $order; do
    cli=${clis[$i]}
    echo "  cli$i first $(run "$work/first$r-$i" 0 "$cli")"
    stopped "$work/cold$i"
    echo "  cli$i cold $(run "$work/cold$i" 0 "$cli")"
    echo "  cli$i warm $(run "$work/warm$i" 900 "$cli")"
  done
  order=$(echo "$order" | tac)
done
