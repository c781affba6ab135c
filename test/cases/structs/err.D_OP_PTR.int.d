/* @@stderr: operator -> must be applied to a pointer */
BEGIN { x = 1; trace(x->member); }
