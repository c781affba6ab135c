#!/bin/sh
# allsys.sh SONDE: writes a D script with one syscall::NAME:return clause
# per system call sonde knows (472 on x86-64: 385 native, 87 i386-only),
# each with a quantize(), for tst.allsys.d. Every clause counts its call in a
# global of its own.
"$1" -l -n 'syscall:::return' | awk 'NR > 1 {
	printf "syscall::%s:return /pid == $target/ { @q = quantize(arg0); n_%s++; }\n", $(NF-1), $(NF-1)
}'
