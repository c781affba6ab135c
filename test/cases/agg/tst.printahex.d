/* Extra %@ conversions convert the last aggregation's value again. */
/* @@opts: -q */
BEGIN { @ = sum(255); printa("%@x %@o %@5d|%@-5d|\n", @); exit(0); }
