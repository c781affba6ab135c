/* @@stderr: action cannot be used in a conditional context */
/* ?: chooses between values; an action is not one (use a predicate) */
BEGIN { 1 ? trace(1) : trace(2); }
