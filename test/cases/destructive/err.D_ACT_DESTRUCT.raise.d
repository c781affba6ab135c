/* raise() is destructive: without -w it is refused. */
BEGIN { raise(SIGUSR1); }
