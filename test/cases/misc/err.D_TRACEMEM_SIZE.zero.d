/* @@stderr: tracemem( ) argument #2 must be a non-zero positive integral constant expression */
BEGIN { tracemem(arg0, 0); }
