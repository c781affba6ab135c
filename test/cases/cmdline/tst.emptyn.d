/* @@opts: -n '' */
/* @@status: 1 */
/* @@stderr: description '' matched 0 probes */
/* @@stderr: no probes matched */
