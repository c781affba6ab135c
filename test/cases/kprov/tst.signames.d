/* Signal names with Linux's numbers, aliases included (SIGPOLL is SIGIO, SIGCLD is SIGCHLD, SIGIOT is SIGABRT): the shell sends itself WINCH and IO. */
/* @@opts: -q -c 'sh -c "trap : WINCH IO; kill -WINCH $$; kill -IO $$; true"' */
proc:::signal-send
/pid == $target && (args[2] == SIGWINCH || args[2] == SIGPOLL)/
{
	printf("send %d%s\n", args[2], args[2] == SIGIO ? " (SIGIO)" : "");
}

END
{
	printf("%d %d %d %d %d\n", SIGCLD, SIGIOT, SIGSYS, SIGRTMIN, SIGRTMAX);
}
