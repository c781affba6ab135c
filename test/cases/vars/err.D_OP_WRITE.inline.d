/* @@stderr: operator = can only be applied to a writable variable */
/* an inline names a value: it cannot be assigned */
inline int LIMIT = 10;
BEGIN { LIMIT = 20; }
