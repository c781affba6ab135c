/* @@stderr: tracemem( ) argument #1 is incompatible with prototype */
/* tracemem() dumps memory at an address: a string is not one */
BEGIN { tracemem("text", 4); }
