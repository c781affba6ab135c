/* @@stderr: operator , operands cannot be actions */
/* the comma operator evaluates expressions; actions are not expressions */
BEGIN { trace(1), trace(2); }
