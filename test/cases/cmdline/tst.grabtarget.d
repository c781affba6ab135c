/* @@spawn: sleep 10 */
/* @@opts: -q -p {spawn} */
/* @@args: {spawn} */
BEGIN { printf("%d %d\n", $target == $1, $target != $pid); exit(0); }
