/* The calls of a Python function counted exactly through function-entry (arg0 the file, arg1 the function, arg2 the line). */
/* @@opts: -q -c '/usr/bin/python3 func.py' */
python$target:::function-entry /copyinstr(arg1) == "target"/ { @[basename(copyinstr(arg0)), copyinstr(arg1), arg2] = count(); }
python$target:::function-return /copyinstr(arg1) == "target"/ { @r = count(); }
END { printa(@); printa("returns %@d\n", @r); }
