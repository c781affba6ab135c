/* A program with no clause traced nothing, forever. */
/* @@status: 1 */
/* @@stderr: no probes matched */
