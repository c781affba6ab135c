// Command io measures what io:::start costs in the kernel per request now
// that it fires for the thread that made the request: the programs that
// keep each request's maker (on block_io_start, block_rq_complete, and
// block_rq_merge, which seldom runs) and the io:::start program itself,
// which looks the request up; against the same
// D on the block_rq_issue tracepoint (tracepoint:block::block_rq_issue),
// which credits the thread that dispatches the queue, as io:::start did
// before. The workload is dd making 512-byte O_DIRECT writes to a loop
// device of the bench's own, with the kernel's BPF run-time statistics
// on. As root, from the repository:
//
//	go run ./bench/io [-rounds 9] [-n 20000]
//
// Each round runs both programs, in turn (the first alternating from round
// to round). It prints each program's run time per run (median and
// quartiles over the rounds) and the sum per request.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sonde-trace/sonde/bench/internal/benchutil"
	"github.com/sonde-trace/sonde/internal/tracer"
)

func main() {
	rounds := flag.Int("rounds", 9, "rounds (each runs both programs)")
	n := flag.Int("n", 20000, "512-byte O_DIRECT writes per run")
	flag.Parse()
	if err := run(*rounds, *n); err != nil {
		fmt.Fprintln(os.Stderr, "bench/io:", err)
		os.Exit(1)
	}
}

func run(rounds, n int) error {
	dir, err := os.MkdirTemp("", "sonde-bench-io-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, make([]byte, n*512), 0o600); err != nil {
		return err
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		return fmt.Errorf("losetup: %w: %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	defer exec.Command("losetup", "-d", loop).Run()
	dd := filepath.Join(dir, "sbenchiodd")
	if out, err := exec.Command("cp", "/bin/dd", dd).CombinedOutput(); err != nil {
		return fmt.Errorf("cp: %w: %s", err, out)
	}
	st, err := tracer.EnableStats()
	if err != nil {
		return err
	}
	defer st.Close()
	const pred = `/execname == "sbenchiodd"/ { @[execname] = count(); }`
	progs := []string{"io:::start " + pred, "tracepoint:block::block_rq_issue " + pred}
	per := make([]map[string][]float64, len(progs)) // program -> name -> ns per run, by round
	reqs := make([][]float64, len(progs))           // ns per request, all programs
	for i := range per {
		per[i] = map[string][]float64{}
	}
	for r := 0; r < rounds; r++ {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		for _, i := range order {
			costs, total, err := measure(progs[i], dd, loop, n)
			if err != nil {
				return err
			}
			for name, ns := range costs {
				per[i][name] = append(per[i][name], ns)
			}
			reqs[i] = append(reqs[i], total)
		}
	}
	fmt.Printf("BPF run time, %d rounds of %d 512-byte O_DIRECT writes to %s:\n", rounds, n, loop)
	for i, p := range progs {
		fmt.Printf("%s\n", p)
		var names []string
		for name := range per[i] {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Printf("  %-28s per run: %s\n", name, summary(per[i][name]))
		}
		fmt.Printf("  %-28s per request: %s\n", "all", summary(reqs[i]))
	}
	return nil
}

// measure runs dd under prog and returns each program's run time per run
// (by the hook it is attached to) and the programs' total run time per
// write request.
func measure(prog, dd, loop string, n int) (map[string]float64, float64, error) {
	p, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: prog}}, Quiet: true,
		Options: []string{"nolibs"}})
	if err != nil {
		return nil, 0, err
	}
	s, err := p.Start(&tracer.StartOptions{Sink: benchutil.Discard{}})
	if err != nil {
		return nil, 0, err
	}
	defer s.Close()
	if err := s.Begin(); err != nil {
		return nil, 0, err
	}
	type stat struct{ runs, ns uint64 }
	read := func() ([]stat, []string, error) {
		var out []stat
		var names []string
		for _, pr := range s.Programs() {
			ps, err := pr.Stats()
			if err != nil {
				return nil, nil, err
			}
			info, err := pr.Info()
			if err != nil {
				return nil, nil, err
			}
			out = append(out, stat{ps.RunCount, uint64(ps.Runtime)})
			names = append(names, info.Name)
		}
		return out, names, nil
	}
	before, _, err := read()
	if err != nil {
		return nil, 0, err
	}
	if out, err := exec.Command(dd, "if=/dev/zero", "of="+loop, "bs=512", "count="+strconv.Itoa(n), "oflag=direct", "status=none").CombinedOutput(); err != nil {
		return nil, 0, fmt.Errorf("dd: %w: %s", err, out)
	}
	after, names, err := read()
	if err != nil {
		return nil, 0, err
	}
	costs := map[string]float64{}
	var total uint64
	for i := range after {
		runs, ns := after[i].runs-before[i].runs, after[i].ns-before[i].ns
		total += ns
		if runs > 0 {
			costs[names[i]] = float64(ns) / float64(runs)
		}
	}
	if len(costs) == 0 {
		return nil, 0, errors.New("no runs counted")
	}
	return costs, float64(total) / float64(n), nil
}

func summary(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(f float64) float64 { return s[int(f*float64(len(s)-1))] }
	return fmt.Sprintf("median %.1f ns (quartiles %.1f–%.1f)", q(0.5), q(0.25), q(0.75))
}
