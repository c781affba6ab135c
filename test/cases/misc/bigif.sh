#!/bin/sh
# bigif.sh N X: writes a BEGIN clause whose if statement has N statements
# in its body, taken when x == 1; x is X. For tst.bigif*.d.
awk -v n="$1" -v x="$2" 'BEGIN {
	print "int x, y;"
	print "BEGIN"
	print "{"
	print "\tx = " x ";"
	print "\tif (x == 1) {"
	for (i = 0; i < n; i++)
		print "\t\ty = y + 1;"
	print "\t\tprintf(\"body: y=%d\\n\", y);"
	print "\t}"
	print "\tprintf(\"after: y=%d\\n\", y);"
	print "\texit(0);"
	print "}"
}'
