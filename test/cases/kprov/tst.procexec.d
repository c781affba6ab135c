/* proc:::exec-success sees the commands started under -c; create and exit see them come and go. */
/* @@opts: -q -c 'sh -c "/bin/true; /bin/true; exit 3"' */
proc:::exec-success /ppid == $target/ { @exec[execname] = count(); }
proc:::create /pid == $target/ { @create = count(); }
proc:::exit /ppid == $target/ { @exit[args[0]] = count(); }
proc:::exit /pid == $target/ { printf("target exit reason %d\n", args[0]); }
END { printa("exec %s %@d\n", @exec); printa("create %@d\n", @create); printa("exit reason %d: %@d\n", @exit); }
