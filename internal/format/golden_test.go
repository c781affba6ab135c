package format

// Golden files: whole outputs of typical programs, kept in
// testdata/<name>.golden. Regenerate them with
//
//	go test ./internal/format -run TestGolden -update
//
// and review the diff; never edit them by hand. The layouts they pin are
// the ones the table tests check against DTrace's own .out files.

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sonde-trace/sonde/internal/value"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	diff(t, name, got, string(want))
}

func TestGolden(t *testing.T) {
	kstack := func(fs ...string) value.Value { return value.Value{Kind: value.Stack, Frames: fs} }
	ustack := func(fs ...string) value.Value { return value.Value{Kind: value.UStack, Frames: fs} }
	cases := map[string]func(t *testing.T) string{
		// dtrace -n 'syscall:::entry { @[execname] = count(); }'
		"count_by_execname": func(t *testing.T) string {
			a := newAgg("", 1, value.Count, value.AggParams{})
			for name, n := range map[string]int{"dtrace": 6, "cat": 36, "sed": 60, "bash": 1003, "sshd": 36} {
				for i := 0; i < n; i++ {
					a.add(vals(str(name)), 0, 0)
				}
			}
			return printAll(t, AggOpts{}, a.a)
		},
		// @[stack()] = count(); @u[ustack()] = count();
		"stack_keys": func(t *testing.T) string {
			k := newAgg("", 1, value.Count, value.AggParams{})
			s1 := kstack("vmlinux`__x64_sys_read+0x19", "vmlinux`do_syscall_64+0x5b", "vmlinux`entry_SYSCALL_64_after_hwframe+0x65")
			s2 := kstack("vmlinux`__x64_sys_write+0x19", "vmlinux`do_syscall_64+0x5b", "vmlinux`entry_SYSCALL_64_after_hwframe+0x65")
			for i := 0; i < 3; i++ {
				k.add(vals(s1), 0, 0)
			}
			k.add(vals(s2), 0, 0)
			u := newAgg("u", 2, value.Count, value.AggParams{})
			u.add(vals(ustack("libc.so.6`__read+0x12", "bash`main+0x1ab", "libc.so.6`__libc_start_main+0xf3", "bash`_start+0x2e")), 0, 0)
			return printAll(t, AggOpts{}, k.a, u.a)
		},
		// @[pid, execname, probefunc] = sum(arg2) and friends on the same keys.
		"multi_keys": func(t *testing.T) string {
			var aggs []*value.Aggregation
			for id, fn := range []value.AggFunc{value.Sum, value.Avg, value.Min, value.Max, value.Stddev} {
				a := newAgg("", id+1, fn, value.AggParams{})
				for _, r := range []struct {
					pid  int64
					name string
					fn   string
					v    []int64
				}{
					{1234, "bash", "read", []int64{1, 128, 4096}},
					{1234, "bash", "write", []int64{12, 80}},
					{987654, "postgres", "pread64", []int64{8192, 8192, 8192, -1}},
					{1, "systemd", "read", []int64{0}},
				} {
					for _, v := range r.v {
						a.add(vals(i32(r.pid), str(r.name), str(r.fn)), v, 0)
					}
				}
				aggs = append(aggs, a.a)
			}
			return printAll(t, AggOpts{}, aggs...)
		},
		// @[execname] = quantize(arg0); lquantize with values outside.
		"distributions": func(t *testing.T) string {
			q := newAgg("", 1, value.Quantize, value.AggParams{})
			for _, v := range []int64{0, 1, 2, 3, 17, 100, 100, 4000, 4095, 65536, -1, -20} {
				q.add(vals(str("mixed")), v, 1)
			}
			for _, v := range []int64{512, 700, 1000, 1023, 2000, 40000} {
				q.add(vals(str("bytes")), v, 1)
			}
			l := newAgg("", 2, value.Lquantize, value.AggParams{Base: 0, Limit: 100, Step: 10})
			for _, v := range []int64{-5, -1, 0, 5, 15, 15, 99, 100, 250, 1000} {
				l.add(vals(i64(7)), v, 1)
			}
			ll := newAgg("", 3, value.Llquantize, value.AggParams{Factor: 10, Low: 1, High: 4, Steps: 10})
			for _, v := range []int64{3, 10, 55, 99, 100, 101, 999, 1500, 25000, 100000, 9999999} {
				ll.add(nil, v, 1)
			}
			return printAll(t, AggOpts{}, q.a, l.a, ll.a)
		},
		// normalize(@, 1000) of a count and a quantize; denormalized sum.
		"normalize": func(t *testing.T) string {
			c := newAgg("c", 1, value.Count, value.AggParams{})
			for i := 0; i < 12345; i++ {
				c.add(vals(str("tick")), 0, 0)
			}
			c.a.Normal = 1000
			q := newAgg("q", 2, value.Quantize, value.AggParams{})
			for _, v := range []int64{1, 2, 3, 1000, 5000} {
				q.add(nil, v, 2500)
			}
			q.a.Normal = 1000
			s := newAgg("s", 3, value.Sum, value.AggParams{})
			s.add(nil, -7, 0)
			s.a.Normal = 2 // C divides "(long long)sum / normal" unsigned
			return printa(t, "%s %@d\n", AggOpts{}, c.a) + printAll(t, AggOpts{}, c.a, q.a, s.a)
		},
		// printa() formats over several key kinds.
		"printa_formats": func(t *testing.T) string {
			a := newAgg("", 1, value.Count, value.AggParams{})
			sym := value.Value{Kind: value.Sym, Str: "vmlinux`vfs_read", Addr: 0xffffffff81300000}
			sym2 := value.Value{Kind: value.Sym, Str: "vmlinux`vfs_write", Addr: 0xffffffff81310000}
			for i := 0; i < 5; i++ {
				a.add(vals(sym, str("cat")), 0, 0)
			}
			a.add(vals(sym2, str("tee")), 0, 0)
			s := newAgg("s", 2, value.Stddev, value.AggParams{})
			for _, v := range []int64{1, 2, 3, 4, 100} {
				s.add(vals(sym, str("cat")), v, 0)
			}
			st := newAgg("st", 3, value.Count, value.AggParams{})
			st.add(vals(kstack("vmlinux`schedule+0x3a", "vmlinux`do_nanosleep+0x80")), 0, 0)
			return printa(t, "%-30a %10s %@8u\n", AggOpts{}, a.a) +
				printa(t, "%a/%s: count %@d stddev %@d\n", AggOpts{}, a.a, s.a) +
				printa(t, "%k %@d\n", AggOpts{}, st.a) +
				printa(t, "", AggOpts{}, a.a, s.a) +
				printa(t, "%@x %@o %@5.3d|%-8@u|\n", AggOpts{SortRev: true}, a.a)
		},
		// A non-quiet run: header, firings with trace() records of each kind.
		"trace_firings": func(t *testing.T) string {
			var b strings.Builder
			b.WriteString(ProbeHeader())
			for _, f := range []struct {
				cpu  int
				id   uint32
				fn   string
				name string
				recs []value.Value
			}{
				{0, 1, "", "BEGIN", nil},
				{1, 45678, "do_sys_openat2", "entry", vals(str("/etc/passwd"), i32(-100), u64(0xffffffffffffffff))},
				{3, 45679, "ksys_read", "return", vals(i8(-1), i16(-1), value.Value{Kind: value.Sym, Str: "vmlinux`ksys_read"})},
				{2, 312, "", "tick-1s", vals(kstack("vmlinux`tick_sched_timer+0x5a", "vmlinux`__hrtimer_run_queues+0x100"))},
				{0, 2, "", "END", vals(value.Value{Kind: value.Bytes, Raw: []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")})},
			} {
				b.WriteString(ProbePrefix(f.cpu, f.id, f.fn, f.name))
				for _, r := range f.recs {
					if err := Trace(&b, r, false); err != nil {
						t.Fatal(err)
					}
				}
				b.WriteString(ProbeEnd(false))
			}
			return b.String()
		},
		"json": func(t *testing.T) string {
			var b strings.Builder
			p := ProbeInfo{CPU: 1, ID: 45678, Provider: "syscall", Function: "openat", Name: "entry"}
			if err := JSONPrintf(&b, p, "open /etc/passwd\n"); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals(i32(-100), u64(1<<63), str("/etc/passwd"), kstack("vmlinux`a+0x1"),
				value.Value{Kind: value.Bytes, Raw: []byte{0, 1, 255}}, value.Value{Kind: value.Sym, Str: "vmlinux`ksys_read"}) {
				if err := JSONTrace(&b, p, v); err != nil {
					t.Fatal(err)
				}
			}
			c := newAgg("calls", 1, value.Count, value.AggParams{})
			c.add(vals(str("read")), 0, 0).add(vals(str("read")), 0, 0).add(vals(str("write")), 0, 0)
			q := newAgg("", 2, value.Quantize, value.AggParams{})
			for _, v := range []int64{-3, 0, 1, 5, 5, 1 << 62} {
				q.add(nil, v, 1)
			}
			l := newAgg("lat", 3, value.Lquantize, value.AggParams{Base: 0, Limit: 100, Step: 10})
			l.add(nil, -1, 1).add(nil, 42, 1).add(nil, 500, 1)
			ll := newAgg("ll", 4, value.Llquantize, value.AggParams{Factor: 10, Low: 0, High: 2, Steps: 10})
			ll.add(nil, 0, 1).add(nil, 7, 1).add(nil, 55, 1).add(nil, 5000, 1)
			s := newAgg("sd", 5, value.Stddev, value.AggParams{})
			s.add(nil, 10, 0).add(nil, 20, 0)
			for _, a := range []*value.Aggregation{c.a, q.a, l.a, ll.a, s.a} {
				if err := JSONAggregation(&b, a, AggOpts{}); err != nil {
					t.Fatal(err)
				}
			}
			return b.String()
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) { golden(t, name, f(t)) })
	}
}
