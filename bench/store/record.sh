#!/bin/sh
# record.sh: record the data that bench/store replays, from real sonde runs.
#
#   make build && sudo bench/store/record.sh [SECONDS]
#
# For SECONDS (default 60) it runs one sonde program that, every second,
# prints as JSON (one line per aggregation): the system calls of the whole
# machine counted by name (a counter breakdown, syscall.ops[name]), the
# latency of read(2) as a log-linear distribution (a heat map's column,
# syscall.latency[name=read]), and the same latency broken down by execname
# (syscall.latency[name=read][execname]). The machine's own activity is
# the workload. The output, gzipped, is testdata/syscalls.json.gz.
set -eu
cd "$(dirname "$0")"
secs=${1:-60}
out=testdata/syscalls.json
../../bin/sonde --json -q -n '
syscall:::entry { @ops[probefunc] = count(); }
syscall::read:entry { self->ts = timestamp; }
syscall::read:return /self->ts/ {
	@lat = llquantize(timestamp - self->ts, 10, 0, 9, 20);
	@latx[execname] = llquantize(timestamp - self->ts, 10, 0, 9, 20);
	self->ts = 0;
}
tick-1s {
	printf("second %d\n", walltimestamp / 1000000000);
	printa(@ops); printa(@lat); printa(@latx);
	trunc(@ops); trunc(@lat); trunc(@latx);
}
tick-'"$secs"'s { exit(0); }' >"$out"
gzip -9 -f "$out"
ls -l "$out.gz"
