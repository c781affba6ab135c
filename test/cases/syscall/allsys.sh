#!/bin/sh
# allsys.sh SONDE: writes a D script with one syscall::NAME:return clause
# per system call sonde knows (385 on x86-64), each with a quantize(),
# for tst.allsys.d. Every clause counts its call in a global of its own.
"$1" -l -n 'syscall:::return' | awk 'NR > 1 {
	printf "syscall::%s:return /pid == $target/ { @q = quantize(arg0); n_%s++; }\n", $(NF-1), $(NF-1)
}'
