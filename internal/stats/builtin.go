package stats

import (
	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/value"
)

// LatencyScale is the llquantize() of every built-in distribution in
// nanoseconds: factor 10, magnitudes 10^0 to 10^10 ns (1 ns to 100 s;
// longer is the last bucket), 20 steps per magnitude. Each magnitude from
// 10 ns up is cut into 18 buckets of width 10^m/2 ([1 µs, 1.5 µs),
// [1.5 µs, 2 µs) ... [9.5 µs, 10 µs)), so a heat map has the same
// resolution at 1 µs as at 1 s and a bucket is never wider than half its
// lower bound; 191 buckets of 8 bytes per key and CPU in the kernel, and
// only the buckets that counted are kept per second. Finer steps (100)
// would cost 5 times the memory for a resolution a heat map cannot show.
var LatencyScale = value.AggParams{Factor: 10, Low: 0, High: 10, Steps: 20}

// UtilizationScale: cpu.utilization's Value is in hundredths of a
// percent (10000 is a CPU busy all second).
const UtilizationScale = 100

// dimKind says how a filter on a dimension compiles.
type dimKind int

const (
	dimString dimKind = iota // compared as a D string
	dimInt                   // compared as an integer
	dimEnum                  // one of a few names, each a predicate
	dimStack                 // a breakdown only: a stack is not compared
)

// dim is a breakdown of a statistic: its D key expression (evaluated in
// the aggregating clause) and how a filter on it compiles.
type dim struct {
	name, desc string
	kind       dimKind
	key        string // D expression of the key (dimEnum: built from values)
	max        int    // dimString: the longest value that can match
	maxInt     int64  // dimInt: the largest value that can match
	values     []enumValue
}

// enumValue is one name of a dimEnum: the predicate true of its events.
// The last one is the key expression's else.
type enumValue struct{ name, pred string }

func execnameDim() dim {
	return dim{name: "execname", desc: "process name (the kernel's comm, 15 bytes)", kind: dimString, key: "execname", max: 15}
}

func pidDim() dim {
	return dim{name: "pid", desc: "process ID", kind: dimInt, key: "pid", maxInt: 1 << 22}
}

func cpuDim() dim {
	return dim{name: "cpu", desc: "CPU number", kind: dimInt, key: "cpu", maxInt: 1 << 16}
}

func ustackDim() dim {
	return dim{name: "ustack", desc: "user stack", kind: dimStack, key: "ustack()"}
}

func stackDim() dim {
	return dim{name: "stack", desc: "kernel stack", kind: dimStack, key: "stack()"}
}

func deviceDim() dim {
	return dim{name: "device", desc: "disk (vda, nvme0n1)", kind: dimString, key: "args[1]->dev_statname", max: 31}
}

func opDim() dim {
	return dim{name: "op", desc: "read or write (discards and flushes are writes)", kind: dimEnum, values: []enumValue{
		{"read", "(args[0]->b_flags & B_READ) != 0"},
		{"write", "(args[0]->b_flags & B_READ) == 0"},
	}}
}

// constDim is a dimension whose value each aggregating clause states
// (net.bytes' direction: "in" for receives, "out" for sends).
func constDim(name, desc string, values ...string) dim {
	d := dim{name: name, desc: desc, kind: dimEnum}
	for _, v := range values {
		d.values = append(d.values, enumValue{name: v})
	}
	return d
}

// tcpStates are the kernel's TCP states (include/net/tcp_states.h).
var tcpStates = []string{"", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
	"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV"}

func tcpStateDim(name, desc, field string) dim {
	d := dim{name: name, desc: desc, kind: dimEnum}
	for i, s := range tcpStates[1:] {
		d.values = append(d.values, enumValue{s, field + " == " + itoa(int64(i+1))})
	}
	d.values = append(d.values, enumValue{"unknown", field + " < 1 || " + field + " > " + itoa(int64(len(tcpStates)-1))})
	return d
}

// dprog is how a dynamic statistic is written in D: clauses before the
// aggregating ones (a start time), the aggregating clauses, and clauses
// after (clean up).
type dprog struct {
	pre  []clause
	aggs []aggClause
	post []clause
	// early are the dimensions whose filters also guard the pre
	// clauses, because their key expression has the same value there
	// (a thread's pid at syscall entry and return): events that the
	// filter drops then cost no start time.
	early []string
}

type clause struct {
	probe, guard, body string
	early              bool // guarded by the early filters too
}

// aggClause fills @a with value, or, for a distribution, with the
// quantization of dist on the dataset's scale (LatencyScale, or
// ExportScale for an exported dataset). consts are dimensions whose
// value is fixed in this clause ("direction": "in"): a filter on another
// value leaves the clause out.
type aggClause struct {
	probe, guard, value, dist string
	consts                    map[string]string
}

// builtin is a statistic of the catalogue.
type builtin struct {
	stat   analytics.Statistic
	dims   []dim
	d      *dprog        // nil: static only
	static *staticSource // nil: D only
}

func (b *builtin) dim(name string) *dim {
	for i := range b.dims {
		if b.dims[i].name == name {
			return &b.dims[i]
		}
	}
	return nil
}

// ExportScale is the llquantize() of built-in distributions exported as
// Prometheus metrics, applied to the value minus one: factor 2,
// magnitudes 2^0 to 2^36 ns (about 69 s; longer is the last bucket), 16
// steps, so 8 linear buckets per power of two. A value v lands in bucket
// [lo, hi) of v-1, that is [lo+1, hi+1) of v: every power of two 2^k
// closes a bucket, (2^(k-1), 2^k] is a whole number of buckets, exactly
// a native histogram's bucket of schema 0 (docs/prometheus.md). 281
// buckets of 8 bytes per key and CPU in the kernel.
var ExportScale = value.AggParams{Factor: 2, Low: 0, High: 36, Steps: 16}

// distValue is the D that quantizes expr on a dataset's scale.
func distValue(expr string, export bool) string {
	if export {
		p := ExportScale
		return sprintf("llquantize((%s) - 1, %d, %d, %d, %d)", expr, p.Factor, p.Low, p.High, p.Steps)
	}
	p := LatencyScale
	return sprintf("llquantize(%s, %d, %d, %d, %d)", expr, p.Factor, p.Low, p.High, p.Steps)
}

// builtins is the built-in catalogue, in Fishworks' names where Linux has
// the same measure.
func builtins() []*builtin {
	ns := "nanoseconds"
	return []*builtin{
		{
			stat: analytics.Statistic{Name: "syscall.ops", Description: "system calls per second", Kind: analytics.Counter, Unit: "operations per second"},
			dims: []dim{execnameDim(), pidDim(), {name: "name", desc: "system call", kind: dimString, key: "probefunc", max: 63}, cpuDim()},
			d:    &dprog{aggs: []aggClause{{probe: "syscall:::entry", value: "count()"}}},
		},
		{
			stat: analytics.Statistic{Name: "syscall.latency", Description: "system call latency, entry to return: a distribution per second", Kind: analytics.Distribution, Unit: ns},
			dims: []dim{execnameDim(), pidDim(), {name: "name", desc: "system call", kind: dimString, key: "probefunc", max: 63}, cpuDim()},
			d: &dprog{
				pre:   []clause{{probe: "syscall:::entry", body: "self->sonde_ts = timestamp;", early: true}},
				aggs:  []aggClause{{probe: "syscall:::return", guard: "self->sonde_ts", dist: "timestamp - self->sonde_ts"}},
				post:  []clause{{probe: "syscall:::return", guard: "self->sonde_ts", body: "self->sonde_ts = 0;"}},
				early: []string{"pid", "name"},
			},
		},
		{
			stat: analytics.Statistic{Name: "io.ops", Description: "disk I/O requests per second (issued; the static counters count completions)", Kind: analytics.Counter, Unit: "operations per second"},
			dims: []dim{deviceDim(), opDim(), execnameDim(), pidDim()},
			d:    &dprog{aggs: []aggClause{{probe: "io:::start", value: "count()"}}},
			static: &staticSource{dims: []string{"device", "op"}, read: func(root string) (counters, error) {
				return readDiskstats(root, false)
			}},
		},
		{
			stat: analytics.Statistic{Name: "io.bytes", Description: "disk I/O bytes per second", Kind: analytics.Counter, Unit: "bytes per second"},
			dims: []dim{deviceDim(), opDim(), execnameDim(), pidDim()},
			d:    &dprog{aggs: []aggClause{{probe: "io:::start", value: "sum(args[0]->b_bcount)"}}},
			static: &staticSource{dims: []string{"device", "op"}, read: func(root string) (counters, error) {
				return readDiskstats(root, true)
			}},
		},
		{
			stat: analytics.Statistic{Name: "io.latency", Description: "disk I/O latency, issue to completion: a distribution per second", Kind: analytics.Distribution, Unit: ns},
			dims: []dim{deviceDim(), opDim()},
			d: &dprog{
				pre: []clause{{probe: "io:::start", body: "sonde_io[args[0]->b_edev, args[0]->b_blkno] = timestamp;", early: true}},
				aggs: []aggClause{{probe: "io:::done", guard: "sonde_io[args[0]->b_edev, args[0]->b_blkno]",
					dist: "timestamp - sonde_io[args[0]->b_edev, args[0]->b_blkno]"}},
				post:  []clause{{probe: "io:::done", guard: "sonde_io[args[0]->b_edev, args[0]->b_blkno]", body: "sonde_io[args[0]->b_edev, args[0]->b_blkno] = 0;"}},
				early: []string{"device", "op"},
			},
		},
		{
			stat: analytics.Statistic{Name: "cpu.utilization", Description: "CPU time not idle, percent of the CPUs' time (by mode: user and kernel, which add up to the total; [mode=idle] and [mode=steal] give those)",
				Kind: analytics.Gauge, Unit: "hundredths of a percent"},
			dims: []dim{
				{name: "mode", desc: "user (with nice and guest), kernel (with interrupts), idle (with I/O wait), steal", kind: dimEnum,
					values: []enumValue{{name: "user"}, {name: "kernel"}, {name: "idle"}, {name: "steal"}}},
				cpuDim(),
			},
			static: &staticSource{dims: []string{"cpu", "mode"}, gauge: true, read: readProcStat},
		},
		{
			stat: analytics.Statistic{Name: "proc.exec", Description: "successful execs per second", Kind: analytics.Counter, Unit: "operations per second"},
			dims: []dim{execnameDim(), pidDim()},
			d:    &dprog{aggs: []aggClause{{probe: "proc:::exec-success", value: "count()"}}},
		},
		{
			stat: analytics.Statistic{Name: "sched.runq.latency", Description: "run queue latency: from a thread's wakeup (or preemption) to its running on a CPU, a distribution per second", Kind: analytics.Distribution, Unit: ns},
			dims: []dim{execnameDim(), pidDim(), cpuDim()},
			d: &dprog{
				pre: []clause{
					{probe: "sched:::wakeup", body: "sonde_rq[args[0]->pr_lwpid] = timestamp;"},
					{probe: "sched:::preempt", guard: "tid != 0", body: "sonde_rq[tid] = timestamp;"},
				},
				aggs: []aggClause{{probe: "sched:::on-cpu", guard: "sonde_rq[tid]", dist: "timestamp - sonde_rq[tid]"}},
				post: []clause{{probe: "sched:::on-cpu", guard: "sonde_rq[tid]", body: "sonde_rq[tid] = 0;"}},
			},
		},
		{
			stat: analytics.Statistic{Name: "offcpu.time", Description: "time threads spent off CPU (blocked, sleeping or runnable), from off-CPU to on-CPU: a distribution per second", Kind: analytics.Distribution, Unit: ns},
			dims: []dim{execnameDim(), pidDim(), ustackDim()},
			d: &dprog{
				pre:   []clause{{probe: "sched:::off-cpu", guard: "pid != 0", body: "self->sonde_off = timestamp;", early: true}},
				aggs:  []aggClause{{probe: "sched:::on-cpu", guard: "pid != 0 && self->sonde_off", dist: "timestamp - self->sonde_off"}},
				post:  []clause{{probe: "sched:::on-cpu", guard: "pid != 0 && self->sonde_off", body: "self->sonde_off = 0;"}},
				early: []string{"execname", "pid"},
			},
		},
		{
			stat: analytics.Statistic{Name: "tcp.connections", Description: "TCP connections established per second (a socket reaching ESTABLISHED: out from SYN_SENT, in from SYN_RECV)", Kind: analytics.Counter, Unit: "connections per second"},
			dims: []dim{
				{name: "direction", desc: "in (accepted) or out (connected)", kind: dimEnum, values: []enumValue{
					{"out", "args->oldstate == 2"}, {"in", "args->oldstate != 2"}}},
				{name: "port", desc: "local port", kind: dimInt, key: "args->sport", maxInt: 65535},
				{name: "rport", desc: "remote port", kind: dimInt, key: "args->dport", maxInt: 65535},
			},
			d: &dprog{aggs: []aggClause{{probe: "tracepoint:sock::inet_sock_set_state",
				guard: "args->protocol == 6 && args->newstate == 1 && (args->oldstate == 2 || args->oldstate == 3)", value: "count()"}}},
		},
		{
			stat: analytics.Statistic{Name: "tcp.states", Description: "TCP state changes per second", Kind: analytics.Counter, Unit: "changes per second"},
			dims: []dim{
				tcpStateDim("state", "the new state (ESTABLISHED, CLOSE_WAIT...)", "args->newstate"),
				tcpStateDim("from", "the old state", "args->oldstate"),
				{name: "port", desc: "local port", kind: dimInt, key: "args->sport", maxInt: 65535},
			},
			d: &dprog{aggs: []aggClause{{probe: "tracepoint:sock::inet_sock_set_state", guard: "args->protocol == 6", value: "count()"}}},
		},
		{
			stat:   analytics.Statistic{Name: "tcp.ops", Description: "TCP segments per second (/proc/net/snmp InSegs, OutSegs)", Kind: analytics.Counter, Unit: "segments per second"},
			dims:   []dim{constDim("direction", "in (received) or out (sent)", "in", "out")},
			static: &staticSource{dims: []string{"direction"}, read: readSnmpTCP},
		},
		{
			stat: analytics.Statistic{Name: "nic.kilobytes", Description: "network interface kilobytes (1024 bytes) per second, as the interfaces count them", Kind: analytics.Counter, Unit: "kilobytes per second"},
			dims: []dim{{name: "device", desc: "interface (eth0, lo)", kind: dimString}, constDim("direction", "in (received) or out (sent)", "in", "out")},
			static: &staticSource{dims: []string{"device", "direction"}, read: func(root string) (counters, error) {
				return readNet(root, "bytes", 1024)
			}},
		},
		{
			stat: analytics.Statistic{Name: "nic.packets", Description: "network interface packets per second", Kind: analytics.Counter, Unit: "packets per second"},
			dims: []dim{{name: "device", desc: "interface (eth0, lo)", kind: dimString}, constDim("direction", "in (received) or out (sent)", "in", "out")},
			static: &staticSource{dims: []string{"device", "direction"}, read: func(root string) (counters, error) {
				return readNet(root, "packets", 1)
			}},
		},
		{
			stat: analytics.Statistic{Name: "net.bytes", Description: "socket bytes per second, sent and received by processes (all socket families)", Kind: analytics.Counter, Unit: "bytes per second"},
			dims: []dim{execnameDim(), pidDim(), constDim("direction", "in (received) or out (sent)", "in", "out")},
			d: &dprog{aggs: []aggClause{
				{probe: "tracepoint:sock::sock_recv_length", guard: "args->ret > 0", value: "sum(args->ret)", consts: map[string]string{"direction": "in"}},
				{probe: "tracepoint:sock::sock_send_length", guard: "args->ret > 0", value: "sum(args->ret)", consts: map[string]string{"direction": "out"}},
			}},
		},
		{
			stat: analytics.Statistic{Name: "fault.ops", Description: "page faults per second (tracepoints exceptions:page_fault_user and page_fault_kernel)", Kind: analytics.Counter, Unit: "faults per second"},
			dims: []dim{execnameDim(), pidDim(), constDim("mode", "user or kernel: where the fault happened", "user", "kernel"), ustackDim(), stackDim()},
			d: &dprog{aggs: []aggClause{
				{probe: "tracepoint:exceptions::page_fault_user", value: "count()", consts: map[string]string{"mode": "user"}},
				{probe: "tracepoint:exceptions::page_fault_kernel", value: "count()", consts: map[string]string{"mode": "kernel"}},
			}},
		},
	}
}
