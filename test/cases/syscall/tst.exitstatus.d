/* With -c, dtrace exits when the command does; the command's exit status is not dtrace's. */
/* @@opts: -q -c 'sh -c "exit 5"' */
/* @@stderr: exited with status 5 */
END { printf("end\n"); }
