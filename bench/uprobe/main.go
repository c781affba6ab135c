// Command uprobe measures the per-call cost of pid (uprobe) and USDT
// probes: sonde against bpftrace (when installed) against a minimal
// hand-written BPF program (the floor: a uprobe incrementing a counter in
// an array map), on the same workload, side by side in one run.
//
//	go run ./bench/uprobe [-n calls] [-runs r] [-usdt]
//
// The workload (loop.c) times its own loop and prints ns per iteration;
// a probe's cost is the traced time minus the untraced one (median of
// runs). The USDT probe is also measured untraced, where only its
// semaphore test runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/sonde-trace/sonde/internal/sym"
	"github.com/sonde-trace/sonde/internal/usdt"
)

func main() {
	n := flag.Int("n", 2000000, "calls per run")
	runs := flag.Int("runs", 5, "runs per configuration")
	write := flag.Bool("write", false, "also write bench/uprobe/RESULTS.md (a section of BENCHMARKS.md)")
	usdtOnly := flag.Bool("usdt", false, "measure the USDT configurations only")
	flag.Parse()
	if err := run(*n, *runs, *write, *usdtOnly); err != nil {
		fmt.Fprintln(os.Stderr, "uprobe bench:", err)
		os.Exit(1)
	}
}

func run(n, runs int, write, usdtOnly bool) error {
	root, _ := filepath.Abs(".")
	dir, err := os.MkdirTemp("", "sonde-uprobe-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sonde := filepath.Join(root, "bin", "sonde")
	if out, err := exec.Command("go", "build", "-o", sonde, "./cmd/sonde").CombinedOutput(); err != nil {
		return fmt.Errorf("building sonde: %v\n%s", err, out)
	}
	src := filepath.Join(root, "bench", "uprobe", "workload")
	hdr := filepath.Join(dir, "loop.h")
	if out, err := exec.Command(sonde, "-h", "-s", filepath.Join(src, "loop.d"), "-o", hdr).CombinedOutput(); err != nil {
		return fmt.Errorf("sonde -h: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "loop")
	if out, err := exec.Command("gcc", "-O2", "-I", dir, "-o", bin, filepath.Join(src, "loop.c")).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc: %v\n%s", err, out)
	}
	N := strconv.Itoa(n)
	_, haveBT := exec.LookPath("bpftrace")
	type config struct {
		name string
		cmd  func() []string // nil: the floor
		mode string
	}
	base := func(mode string) func() []string { return func() []string { return []string{bin, mode, N} } }
	configs := []config{
		{"untraced call", base("call"), "call"},
		{"pid entry: floor (hand-written BPF)", nil, "call"},
		{"pid entry: sonde", func() []string {
			return []string{sonde, "-q", "-n", "pid$target::target:entry { @ = count(); }", "-c", bin + " call " + N}
		}, "call"},
		{"untraced USDT probe (semaphore off)", base("usdt"), "usdt"},
		{"USDT: floor (hand-written BPF)", nil, "usdt"},
		{"USDT: sonde", func() []string {
			return []string{sonde, "-q", "-n", "loop$target:::tick { @ = count(); }", "-c", bin + " usdt " + N}
		}, "usdt"},
	}
	if haveBT == nil {
		configs = append(configs,
			config{"pid entry: bpftrace", func() []string {
				return []string{"bpftrace", "-q", "-e", "uprobe:" + bin + ":target { @ = count(); } END { clear(@); }", "-c", bin + " call " + N}
			}, "call"},
			config{"USDT: bpftrace", func() []string {
				return []string{"bpftrace", "-q", "-e", "usdt:" + bin + ":loop:tick { @ = count(); } END { clear(@); }", "-c", bin + " usdt " + N}
			}, "usdt"})
	}
	if usdtOnly {
		if write {
			return fmt.Errorf("-write needs every configuration")
		}
		var u []config
		for _, c := range configs {
			if c.mode == "usdt" {
				u = append(u, c)
			}
		}
		configs = u
	}
	res := map[string]float64{}
	for _, c := range configs {
		var xs []float64
		for r := 0; r < runs; r++ {
			var v float64
			var err error
			if c.cmd == nil {
				v, err = floor(bin, c.mode, N)
			} else {
				v, err = measure(c.cmd())
			}
			if err != nil {
				return fmt.Errorf("%s: %v", c.name, err)
			}
			xs = append(xs, v)
		}
		sort.Float64s(xs)
		res[c.name] = xs[len(xs)/2]
	}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "| configuration | ns per call | probe cost (ns) | ratio to floor |\n|---|---|---|---|\n")
	for _, c := range configs {
		v := res[c.name]
		b := res["untraced call"]
		fl := res["pid entry: floor (hand-written BPF)"]
		if c.mode == "usdt" {
			b, fl = res["untraced USDT probe (semaphore off)"], res["USDT: floor (hand-written BPF)"]
		}
		cost, ratio := "", ""
		if !strings.HasPrefix(c.name, "untraced") {
			cost = fmt.Sprintf("%.0f", v-b)
			ratio = fmt.Sprintf("%.2f×", (v-b)/(fl-b))
		}
		fmt.Fprintf(&tbl, "| %s | %.1f | %s | %s |\n", c.name, v, cost, ratio)
	}
	fmt.Print(tbl.String())
	if !write {
		return nil
	}
	doc := "## User-level probes: pid and USDT\n\n" +
		"`go run ./bench/uprobe -write` (part of `make bench`): the workload (bench/uprobe/workload/loop.c, gcc -O2) calls a\n" +
		"noinline function, or fires a USDT probe from a header made by `sonde -h`, " + strconv.Itoa(n) + " times and times its own loop;\n" +
		"a probe's cost is the traced ns per iteration minus the untraced one (median of " + strconv.Itoa(runs) + " runs). Each probe counts\n" +
		"into an aggregation (`@ = count()`); the floor is a hand-written BPF program incrementing an array-map counter on the\n" +
		"same uprobe. Most of a pid probe's cost is the kernel's breakpoint trap and single-step; a USDT site is a 1-byte\n" +
		"nop, which the kernel emulates after the trap instead of single-stepping it. An untraced USDT probe costs its\n" +
		"semaphore test.\n\n" + tbl.String() +
		"\nA VM's timing is noisy: floors move by tens of percent between runs, so ratios near 1 mean \"the same\".\n"
	return os.WriteFile(filepath.Join(root, "bench", "uprobe", "RESULTS.md"), []byte(doc), 0o644)
}

// measure runs a command whose standard output ends with the workload's
// ns per iteration.
func measure(argv []string) (float64, error) {
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		return 0, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	// the workload prints first, "%.1f"; the tracers' aggregations after
	for _, f := range strings.Fields(string(out)) {
		if !strings.Contains(f, ".") {
			continue
		}
		if v, err := strconv.ParseFloat(f, 64); err == nil {
			return v, nil
		}
	}
	return 0, fmt.Errorf("no timing in %q", out)
}

// floor runs the workload with a minimal BPF program on the probe site: a
// per-call counter increment in an array map.
func floor(bin, mode, n string) (float64, error) {
	_ = rlimit.RemoveMemlock()
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1})
	if err != nil {
		return 0, err
	}
	defer m.Close()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, License: "GPL", Instructions: asm.Instructions{
		asm.StoreImm(asm.R10, -4, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}})
	if err != nil {
		return 0, err
	}
	defer prog.Close()
	ex, err := link.OpenExecutable(bin)
	if err != nil {
		return 0, err
	}
	opts := &link.UprobeOptions{}
	if mode == "usdt" {
		f, err := usdt.Open(bin)
		if err != nil || len(f.Probes) == 0 {
			return 0, fmt.Errorf("no USDT probe in %s", bin)
		}
		opts.Address, opts.RefCtrOffset = f.Probes[0].Offset, f.Probes[0].SemaphoreOffset
	} else {
		s, err := sym.ResolveFunc(bin, "target")
		if err != nil {
			return 0, err
		}
		f, _ := sym.OpenFile(bin)
		opts.Address, _ = f.VaddrToOffset(s[0].Value)
	}
	l, err := ex.Uprobe("target", prog, opts)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return measure([]string{bin, mode, n})
}
