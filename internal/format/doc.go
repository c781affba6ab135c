// Package format renders values of package value exactly as illumos DTrace
// prints them: printf() and printa() formats, trace(), the per-firing probe
// prefix, aggregations printed by printa() and at exit (including the
// quantize(), lquantize() and llquantize() plots), and newline-delimited JSON.
// It also owns the bucket layouts of the quantizing aggregations, which the
// BPF code generator shares.
//
// The layouts follow libdtrace; each rule cites where it comes from:
//
//   - dt_printf.c: printf conversions (dt_printf_create, dt_printf_format,
//     pfprint_*), printa's %@ and the joined printa of several aggregations.
//   - dt_consume.c: trace() (dt_consume_cpu, dt_print_bytes), stacks
//     (dt_print_stack, dt_print_ustack), symbols (dt_print_sym, dt_print_mod),
//     aggregation rows (dt_print_aggs, dt_print_datum) and the plots
//     (dt_print_quantize, dt_print_lquantize, dt_print_llquantize,
//     dt_print_quantline), stddev (dt_stddev).
//   - dt_aggregate.c: sort order (dt_aggregate_varvalcmp and friends, the
//     aggsortkey, aggsortrev, aggsortpos and aggsortkeypos options) and the
//     joined walk that printa() with several aggregations uses.
//   - dtrace.c (the command): the CPU/ID/FUNCTION:NAME header, the per-firing
//     prefix, the newline after each firing and the newline printed before the
//     aggregations at exit.
//   - the kernel's dtrace.c: bucket selection (dtrace_aggregate_quantize,
//     dtrace_aggregate_lquantize, dtrace_aggregate_llquantize_bucket).
//
// Expected outputs in the tests are copied from the DTrace test suite
// (cmd/dtrace/test/tst/common/*/tst.*.d.out as shipped with illumos and
// FreeBSD) and cite the file they come from.
//
// The package never sees BPF: it works on value.Value and value.Aggregation.
package format
