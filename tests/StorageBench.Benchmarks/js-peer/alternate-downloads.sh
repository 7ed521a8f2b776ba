#!/usr/bin/env bash
# BENCHMARKS.md section 13: 4 x 256 MiB in 4 MiB ranges, 8 in flight, the JS SDK peer (download.js) beside a storagebench
# run, alternated round by round on one in-memory Azurite; each run's window rate, its driver's CPU per MB, and Azurite's
# CPU per MB over that window (/proc/PID/stat sampled every 0.2 s). Connection strings go by environment only.
#   npm ci --prefix tests/StorageBench.Benchmarks/js-peer    (once)
#   tests/StorageBench.Benchmarks/js-peer/alternate-downloads.sh ROUNDS CLI_DLL
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
rounds=$1; cli=$2
work=$(mktemp -d)
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
bp=$(free_port); qp=$(free_port); tp=$(free_port)
node node_modules/azurite/dist/src/azurite.js --inMemoryPersistence --disableTelemetry --loose --silent --skipApiVersionCheck --blobHost 127.0.0.1 \
  --blobPort "$bp" --queueHost 127.0.0.1 --queuePort "$qp" --tableHost 127.0.0.1 --tablePort "$tp" >/dev/null 2>&1 &
az=$!
# Azurite's CPU (utime+stime ticks) sampled every 0.2 s with the wall time
( while kill -0 $az 2>/dev/null; do echo "$(date +%s.%N) $(awk '{print $14+$15}' /proc/$az/stat)"; sleep 0.2; done ) > $work/azcpu &
sampler=$!
trap 'kill $sampler $az 2>/dev/null' EXIT
for port in $bp $qp $tp; do until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do sleep 0.05; done; done
account="AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
export STORAGEBENCH_TARGET_CONNECTION_STRING="DefaultEndpointsProtocol=http;$account;BlobEndpoint=http://127.0.0.1:$bp/devstoreaccount1;QueueEndpoint=http://127.0.0.1:$qp/devstoreaccount1;TableEndpoint=http://127.0.0.1:$tp/devstoreaccount1;"
export PEER_CONNECTION_STRING="$STORAGEBENCH_TARGET_CONNECTION_STRING"
export STORAGEBENCH_HUB_DIR=$work/hub STORAGEBENCH_HUB_IDLE_SECONDS=0
cd tests/StorageBench.Benchmarks/js-peer
node -e '
const { BlobServiceClient } = require("@azure/storage-blob");
(async () => {
  const c = BlobServiceClient.fromConnectionString(process.env.PEER_CONNECTION_STRING).getContainerClient("peers");
  await c.createIfNotExists();
  const data = require("crypto").randomBytes(256 * 1024 * 1024);
  for (let i = 0; i < 4; i++) await c.getBlockBlobClient("b" + i).uploadData(data, { blockSize: 4 * 1024 * 1024, concurrency: 8 });
})().catch(e => { console.error(e.message); process.exit(1); });'
cd "$root"
echo '{ "scenario": "dl4x256", "startDelaySeconds": 1, "blobDownload": { "blobCount": 4, "blobSizeBytes": 268435456, "rangeSizeBytes": 4194304, "parallelRanges": 8, "downloadCount": 4, "slices": 1 } }' > $work/spec.json
azcpu_between() { python3 - "$work/azcpu" "$1" "$2" <<'PY'
import sys, bisect
rows=[tuple(map(float,l.split())) for l in open(sys.argv[1]) if len(l.split())==2]
t=[r[0] for r in rows]; c=[r[1] for r in rows]
def at(x):
    i=bisect.bisect_left(t,x); i=min(max(i,1),len(t)-1)
    t0,t1,c0,c1=t[i-1],t[i],c[i-1],c[i]
    return c0+(c1-c0)*(x-t0)/(t1-t0) if t1>t0 else c1
print((at(float(sys.argv[3]))-at(float(sys.argv[2])))/100.0)
PY
}
mb=$(echo "4*268435456/1000000" | bc -l)
for r in $(seq 1 "$rounds"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  s=$(date +%s.%N)
  out=$( cd tests/StorageBench.Benchmarks/js-peer && /usr/bin/time -f "%U %S" -o $work/ptime node download.js peers 4194304 8 b0 b1 b2 b3 )
  e=$(date +%s.%N)
  secs=$(echo "$out" | python3 -c 'import json,sys;print(json.loads(sys.stdin.read().strip().splitlines()[-1])["seconds"])')
  bytes=$(echo "$out" | python3 -c 'import json,sys;print(json.loads(sys.stdin.read().strip().splitlines()[-1])["bytes"])')
  read u sy < $work/ptime
  # the peer's window ends at its exit (less node's teardown); it starts secs before
  wend=$e; wstart=$(echo "$e - $secs" | bc -l)
  acpu=$(azcpu_between $wstart $wend)
  python3 -c "
mb=$bytes/1e6; print(f'round $r load $load peer   window {mb/$secs:6.1f} MB/s  driver {($u+$sy)*1e6/mb:6.0f} us/MB (whole process)  azurite {$acpu*1e6/mb:6.0f} us/MB  bytes $bytes')"
  rm -rf $work/out
  /usr/bin/time -f "%U %S %e" -o $work/stime dotnet $cli run --spec $work/spec.json --out $work/out --force > $work/sb-$r.log 2>&1 || { echo "storagebench failed:"; tail -5 $work/sb-$r.log; continue; }
  read su ss se < <(tail -1 $work/stime)
  # storagebench's window as its summary's timeline gives it (whole seconds): from its first second's middle, durationSeconds long
  read -r wstart wend < <(python3 -c 'import json,sys;w=json.load(open(sys.argv[1]))["workloads"][0];s=w["timeline"]["startUnixSecond"]+0.5;print(s, s+w["durationSeconds"])' "$work/out/summary.json")
  acpu=$(azcpu_between "$wstart" "$wend")
  python3 - "$work/out/summary.json" <<PY
import json, sys
w=json.load(open(sys.argv[1]))['workloads'][0]
mb=4*268435456/1e6
print(f"round $r load $load sbench window {w['throughput']['megabytesPerSecond']:6.1f} MB/s  driver {w['clientCpuMicrosecondsPerMegabyte']:6.0f} us/MB (window)  azurite {$acpu*1e6/mb:6.0f} us/MB  verified {w['verified']['matched']}  whole process $se s, cpu {float('$su')+float('$ss'):.1f} s  priming {w['priming']}")
PY
done
