/* the number of bytes tracemem() records is fixed when the program is compiled */
syscall::write:entry { tracemem(arg1, arg2); }
