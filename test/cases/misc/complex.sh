#!/bin/sh
# complex.sh N: writes a BEGIN clause of N quantize() statements, whose
# paths the verifier follows one by one, after a small BEGIN clause. For
# tst.complexclause.d.
awk -v n="$1" 'BEGIN {
	print "int y;"
	print "BEGIN { printf(\"first\\n\"); }"
	print ""
	print "BEGIN"
	print "{"
	for (i = 0; i < n; i++)
		print "\t@q = quantize(y + " i ");"
	print "\texit(0);"
	print "}"
}'
