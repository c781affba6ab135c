/* The right operand of && and || is not evaluated when the left decides: no division by zero. */
/* @@opts: -q */
BEGIN { x = 0; a = x != 0 && 10 / x > 1; b = x == 0 || 10 / x > 1; printf("%d %d\n", a, b); exit(0); }
