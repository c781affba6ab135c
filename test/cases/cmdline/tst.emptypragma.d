/* @@status: 1 */
/* @@stderr: no probes matched */
#pragma D option quiet
