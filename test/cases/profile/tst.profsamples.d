/* @@opts: -q */
profile-997 { @samples = count(); }
tick-300ms { exit(0); }
END { printa("%@d\n", @samples); }
