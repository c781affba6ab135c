/* An error in an ERROR clause is counted, as DTrace counts it ("N errors in
   ERROR probe enabling"), and neither reported nor handed to ERROR again,
   which would go on for ever. */
/* @@opts: -q */
/* @@stderr: sonde: 1 error in ERROR probe enabling */
BEGIN { x = *(int *)0; }
ERROR { printf("ERROR ran\n"); }
ERROR { y = *(int *)8; }
BEGIN { exit(0); }
