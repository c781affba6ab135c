/* A C++ program's stack shows demangled names. */
/* @@setup: g++ -O1 -fno-omit-frame-pointer -o /tmp/sonde-hotcc hot.cc */
/* @@opts: -q -c /tmp/sonde-hotcc */
profile-997 /pid == $target/ { @[ustack(2)] = count(); }
END { trunc(@, 1); printa("%k\n", @); }
