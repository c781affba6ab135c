/* -c '' was ignored: the program ran with no command. */
/* @@opts: -c '' */
/* @@status: 2 */
/* @@stderr: option -c requires a command */
BEGIN { exit(0); }
