// Command persecond counts system calls per second for ten seconds with
// the tracer library: one D program is compiled and started once, and every
// second its aggregation is read whole (cumulative counts, summed over CPUs)
// and differenced with the last reading. Counts only grow, so each event
// falls into exactly one second's difference: none is lost or counted twice,
// though one that lands while the CPUs are being read may be attributed to
// the next second. (sonded goes further: it flips per-second generations of
// its maps, so a second holds exactly the events of that second.)
//
// Run as root:
//
//	go run ./examples/persecond [-n seconds] [-top 5] ['D predicate']
//
// e.g. go run ./examples/persecond 'execname == "dd"'.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/sonde-trace/sonde/internal/format"
	"github.com/sonde-trace/sonde/internal/tracer"
	"github.com/sonde-trace/sonde/internal/value"
)

func main() {
	seconds := flag.Int("n", 10, "seconds to sample")
	top := flag.Int("top", 5, "system calls shown each second")
	flag.Parse()
	pred := ""
	if flag.NArg() > 0 {
		pred = "/" + flag.Arg(0) + "/"
	}
	src := "syscall:::entry " + pred + " { @[probefunc] = count(); }"
	if err := run(src, *seconds, *top); err != nil {
		fmt.Fprintf(os.Stderr, "persecond: %v\n", err)
		os.Exit(1)
	}
}

func run(src string, seconds, top int) error {
	prog, err := tracer.Compile(&tracer.Config{Sources: []tracer.Source{{Kind: tracer.Inline, Text: src}}, Quiet: true})
	if err != nil {
		if s := prog.Render(err); s != "" {
			return fmt.Errorf("%s", s)
		}
		return err
	}
	// Nothing is printed from records: the values are read from the
	// aggregation. Losses and faults still say so on stderr.
	sink := &format.Text{Out: io.Discard, Warn: os.Stderr, Quiet: true}
	sess, err := prog.Start(&tracer.StartOptions{Sink: sink})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := sess.Begin(); err != nil {
		return err
	}
	last := map[string]int64{}
	next := time.Now().Truncate(time.Second).Add(time.Second)
	for i := 0; i < seconds; i++ {
		for time.Now().Before(next) {
			if err := sess.Poll(); err != nil {
				return err
			}
		}
		now := counts(sess.Snapshot(0))
		printSecond(next, delta(now, last), top)
		last = now
		next = next.Add(time.Second)
	}
	return sess.End()
}

// counts maps each key of a count() aggregation to its cumulative value.
func counts(a *value.Aggregation) map[string]int64 {
	m := map[string]int64{}
	for _, r := range a.Rows {
		m[r.Keys[0].Str] = r.Val.Count
	}
	return m
}

// delta is what each key counted since last; keys that did not count are
// absent, not zero.
func delta(now, last map[string]int64) map[string]int64 {
	d := map[string]int64{}
	for k, v := range now {
		if n := v - last[k]; n != 0 {
			d[k] = n
		}
	}
	return d
}

func printSecond(t time.Time, d map[string]int64, top int) {
	keys := make([]string, 0, len(d))
	var total int64
	for k, n := range d {
		keys = append(keys, k)
		total += n
	}
	sort.Slice(keys, func(i, j int) bool { return d[keys[i]] > d[keys[j]] || d[keys[i]] == d[keys[j]] && keys[i] < keys[j] })
	fmt.Printf("%s %8d", t.UTC().Format("15:04:05"), total)
	for i, k := range keys {
		if i == top {
			break
		}
		fmt.Printf("  %s=%d", k, d[k])
	}
	fmt.Println()
}
