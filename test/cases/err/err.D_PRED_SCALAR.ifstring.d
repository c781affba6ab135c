/* @@stderr: predicate result must be of scalar type */
/* an if condition is a predicate (DTrace makes each branch a clause): a
   string is not a scalar; compare it instead */
BEGIN { if (execname) { trace(1); } }
