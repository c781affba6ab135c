/* A struct neither the program nor the kernel defines stays a forward declaration. */
BEGIN { trace(((struct sonde_no_such_struct *)arg0)->x); }
