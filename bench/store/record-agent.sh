#!/bin/sh
# record-agent.sh: record, with a real sonded, the latency distributions
# that bench/store replays (testdata/agent.json.gz).
#
#   make build && sudo bench/store/record-agent.sh [SECONDS]
#
# It starts bin/sonded on a temporary state directory and port, creates the
# built-in distribution datasets a user opens for heat maps (system call,
# disk I/O and run-queue latency, whole and broken down), lets the machine
# run as it is for SECONDS (default 300: the "typical" half), then adds a
# load for as long again (the "heavy" half: a direct-I/O dd writing 4 KiB
# blocks and a dd copying 1 KiB blocks from /dev/zero to /dev/null, both
# at nice 19), stops sonded and dumps the datasets' per-second data, as
# the agent gave them to the store, with `go run ./bench/store -dump`:
# all of it to testdata/agent-full.json.gz (about 4 MB for 600 seconds, not
# committed), and to testdata/agent.json.gz (committed, under 1 MB) the
# datasets without breakdowns, the default counters, and 200 seconds of
# syscall.latency[name] around the middle (the load's start).
set -eu
cd "$(dirname "$0")"
secs=${1:-300}
root=$(cd ../.. && pwd)
dir=$(mktemp -d /tmp/record-agent.XXXXXX)
port=$((20000 + $$ % 20000))
url=http://127.0.0.1:$port
"$root/bin/sonded" --state-dir "$dir" --listen 127.0.0.1:$port --budget -1 2>"$dir/sonded.log" &
agent=$!
load1= load2=
trap 'kill $agent $load1 $load2 2>/dev/null || true' EXIT
sleep 2
for spec in 'syscall.latency' 'syscall.latency[name]' 'syscall.latency[execname]' \
	'io.latency' 'io.latency[device]' 'sched.runq.latency' 'sched.runq.latency[execname]'; do
	"$root/bin/sonde" analytics create "$spec" -url "$url" >/dev/null
done
date -u +"typical from %H:%M:%S"
sleep "$secs"
date -u +"heavy from %H:%M:%S"
(while :; do nice -n 19 dd if=/dev/zero of="$dir/io" bs=4k count=20000 oflag=direct 2>/dev/null; done) &
load1=$!
(while :; do nice -n 19 dd if=/dev/zero of=/dev/null bs=1k count=2000000 2>/dev/null; done) &
load2=$!
sleep "$secs"
kill $load1 $load2
kill $agent
wait $agent || true
cd "$root"
echo "state: $dir"
go run ./bench/store -dump "$dir" -o bench/store/testdata/agent-full.json.gz
go run ./bench/store -dump "$dir" -o bench/store/testdata/agent.json.gz -keyed-seconds 200 \
	-datasets 'syscall.latency,syscall.latency[name],io.latency,sched.runq.latency,syscall.ops,io.ops,io.ops[op],io.bytes,cpu.utilization,cpu.utilization[mode],nic.kilobytes,nic.kilobytes[direction]'
rm -rf "$dir"
