/*
 * A hardware counter where the CPU exposes no performance monitoring unit
 * (this virtual machine): the error says what is missing and which events
 * work instead. On a machine with a PMU this case fails: the probe exists.
 */
/* @@stderr: PAPI_tot_cyc needs a CPU performance monitoring unit (PMU) */
/* @@stderr: software events count everywhere */
cpc:::PAPI_tot_cyc-all-100000 { @ = count(); }
