/* @@stderr: local variables may not be used as associative arrays: seen */
BEGIN { this->seen[pid] = 1; }
