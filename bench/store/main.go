// Command store measures sonded's store (internal/store) on data recorded
// from real runs. From the repository's root (no privilege needed):
//
//	go run ./bench/store
//
// It replays two recordings into stores writing each chunk format (1, the
// first, 2, and 3, the one written now) and prints, side by side, the
// bytes on disk per sample (one key's value in one second) and per
// distribution-second (one key's buckets in one second), a naive
// fixed-width encoding, a floor (for distributions the Poisson floor, see
// poissonBits; for counters an empirical entropy, see counterFloor), and
// the bytes of Prometheus's own TSDB chunk encoders run here on the same
// series (prom.go):
//
//   - testdata/syscalls.json.gz (record.sh: one sonde --json run printing,
//     every second, the system calls of the machine by name, and read(2)'s
//     latency as a log-linear distribution, whole and by execname);
//   - testdata/agent.json.gz (record-agent.sh: a real sonded's own data
//     for ten minutes, the machine as it was and then under a load: the
//     built-in latency heat maps of system calls, disk I/O and the run
//     queue, and the default counters), also each half apart.
//
// Then it measures the cost of a durable second (one commit, fsynced) for
// ten datasets, and, for formats 1 and 3, the time (and CPU time) to read
// one hour of per-second data and one week of per-minute data of a 50-key
// breakdown generated from the recorded shape, and one hour of a recorded
// heat map; and reads through the store's cache of decoded chunks, cold
// and warm (cache.go; -cache measures only that).
// -dump makes agent.json.gz from a stopped sonded's state directory.
// Benchmarks are not tests: nothing here passes or fails on a number.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/store"
)

func main() {
	data := flag.String("data", "bench/store/testdata/syscalls.json.gz,bench/store/testdata/agent.json.gz",
		"the recordings, comma-separated (record.sh, record-agent.sh)")
	quick := flag.Bool("quick", false, "measure the bytes on disk only")
	dump := flag.String("dump", "", "write the per-second data of the store in `DIR` (a stopped sonded's state directory) to -o, and exit")
	out := flag.String("o", "", "the file -dump writes (gzipped JSON lines)")
	datasets := flag.String("datasets", "", "the datasets -dump writes, comma-separated (default all)")
	cacheOnly := flag.Bool("cache", false, "measure the cache of decoded chunks only (cacheTimes)")
	keyed := flag.Int("keyed-seconds", 0, "-dump writes of a dataset broken down by a key only this many seconds around the recording's middle (0: all)")
	flag.Parse()
	var err error
	if *dump != "" {
		var names []string
		if *datasets != "" {
			names = strings.Split(*datasets, ",")
		}
		err = dumpStore(*dump, *out, names, *keyed)
	} else if *cacheOnly {
		var r recording
		if r, err = load("bench/store/testdata/agent.json.gz"); err == nil {
			err = cacheTimes(r[heatName])
		}
	} else {
		err = run(strings.Split(*data, ","), *quick)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/store:", err)
		os.Exit(1)
	}
}

// The recording's datasets, as the agent would name them.
const (
	opsName  = "syscall.ops[name]"
	latName  = "syscall.latency[name=read]"
	latxName = "syscall.latency[name=read][execname]"
)

// recording is the replayed data: each dataset's seconds, in order.
type recording map[string][]analytics.Second

func run(paths []string, quick bool) error {
	var rec recording
	var heat []analytics.Second
	for _, path := range paths {
		r, err := load(path)
		if err != nil {
			return err
		}
		if rec == nil {
			rec = r
		}
		if heat == nil {
			heat = r[heatName]
		}
		if err := compression(path, r); err != nil {
			return err
		}
		if strings.Contains(path, "agent") {
			if err := halves(r); err != nil {
				return err
			}
		}
	}
	if quick {
		return nil
	}
	if err := commitCost(rec[opsName]); err != nil {
		return err
	}
	if err := readTimes(rec[opsName], heat); err != nil {
		return err
	}
	return cacheTimes(heat)
}

// line is one line of sonde --json.
type line struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
	Rows []struct {
		Keys    []any `json:"keys"`
		Value   int64 `json:"value"`
		Buckets []struct {
			Min   int64 `json:"min"`
			Max   int64 `json:"max"`
			Count int64 `json:"count"`
		} `json:"buckets"`
	} `json:"rows"`
}

// load reads a recording: sonde --json lines (record.sh) or the dump of
// a sonded's store (record-agent.sh).
func load(path string) (recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var lines []line
	var dumped []dumpLine
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(dumped) > 0 || len(lines) == 0 && bytes.HasPrefix(sc.Bytes(), []byte(`{"dataset"`)) {
			var d dumpLine
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			dumped = append(dumped, d)
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(dumped) > 0 {
		return undump(dumped), nil
	}
	return convert(lines), nil
}

// convert turns sonde's lines into seconds: a "second N" printf starts
// one; the aggregations that follow are its rows. A bucket's index is its
// rank among the scale's lower bounds seen.
func convert(lines []line) recording {
	var mins []int64
	for _, l := range lines {
		for _, r := range l.Rows {
			for _, b := range r.Buckets {
				mins = append(mins, b.Min)
			}
		}
	}
	slices.Sort(mins)
	mins = slices.Compact(mins)
	rec := recording{}
	names := map[string]string{"ops": opsName, "lat": latName, "latx": latxName}
	var now time.Time
	for _, l := range lines {
		if l.Type == "printf" {
			var t int64
			if _, err := fmt.Sscanf(l.Text, "second %d", &t); err == nil {
				now = time.Unix(t, 0).UTC()
				for _, n := range names {
					rec[n] = append(rec[n], analytics.Second{Time: now, Samples: 1})
				}
			}
			continue
		}
		name, ok := names[l.Name]
		if l.Type != "aggregation" || !ok || len(rec[name]) == 0 {
			continue
		}
		s := &rec[name][len(rec[name])-1]
		for _, r := range l.Rows {
			row := analytics.Row{Value: r.Value}
			for _, k := range r.Keys {
				row.Key = append(row.Key, fmt.Sprint(k))
			}
			for _, b := range r.Buckets {
				idx, _ := slices.BinarySearch(mins, b.Min)
				row.Buckets = append(row.Buckets, analytics.Bucket{Index: int32(idx), Min: b.Min, Max: analytics.Bound(analytics.LegacyMax(b.Min, b.Max)), Count: b.Count})
				row.Value += b.Count
			}
			s.Rows = append(s.Rows, row)
		}
	}
	return rec
}

// secondsWindow is the store's window of the per-second tier.
const secondsWindow = 1800

// replay appends the recording to a new store writing chunks of the
// given format, in time order, one AppendBatch per second, and closes its
// chunks.
func replay(dir string, rec recording, version int) (*store.DB, error) {
	byTime := map[int64][]store.Sample{}
	for name, secs := range rec {
		for _, s := range secs {
			t := s.Time.Unix()
			byTime[t] = append(byTime[t], store.Sample{Dataset: name, Second: s})
		}
	}
	times := make([]int64, 0, len(byTime))
	for t := range byTime {
		times = append(times, t)
	}
	slices.Sort(times)
	if len(times) == 0 {
		return nil, fmt.Errorf("an empty recording")
	}
	// The recording is moved back in time to start a window of the
	// per-second tier (30 minutes): its ten minutes make one chunk, as
	// in an agent that has run for a while, rather than two partial
	// chunks, each with its own header and its own model to learn.
	shift := times[0] % secondsWindow
	for i, t := range times {
		times[i] = t - shift
		batch := byTime[t]
		for j := range batch {
			batch[j].Second.Time = batch[j].Second.Time.Add(-time.Duration(shift) * time.Second)
		}
		delete(byTime, t)
		byTime[t-shift] = batch
	}
	db, err := store.Open(dir, &store.Options{NoSync: true, ChunkVersion: version,
		Now: func() time.Time { return time.Unix(times[0], 0) }})
	if err != nil {
		return nil, err
	}
	for _, t := range times {
		batch := byTime[t]
		slices.SortFunc(batch, func(a, b store.Sample) int { return strings.Compare(a.Dataset, b.Dataset) })
		if err := db.AppendBatch(batch); err != nil {
			db.Close()
			return nil, err
		}
	}
	if err := db.Flush(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// sizes are a dataset's bytes in the per-second tier and in all tiers,
// with chunks of format 1 and of format 2.
type sizes struct{ sec, all [4]int64 }

// measure replays rec into stores of each chunk format.
func measure(rec recording) (map[string]*sizes, error) {
	out := map[string]*sizes{}
	for v := 1; v <= 3; v++ {
		dir, err := os.MkdirTemp("", "bench-store-")
		if err != nil {
			return nil, err
		}
		db, err := replay(dir, rec, v)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		for name := range rec {
			if out[name] == nil {
				out[name] = &sizes{}
			}
			_, out[name].sec[v] = db.TierSize(name, analytics.PerSecond)
			_, out[name].all[v] = db.Size(name)
		}
		err = db.Close()
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shape is what a dataset's seconds hold.
type shape struct {
	rows, buckets, naive int64
	dist                 bool
	poisson              float64 // bits
	h0, h1               float64 // bits: a counter's empirical floors (counterFloor)
}

func shapeOf(secs []analytics.Second) shape {
	var sh shape
	byKey := map[string][]int64{}
	for _, s := range secs {
		for _, r := range s.Rows {
			if len(r.Buckets) == 0 {
				id := strings.Join(r.Key, "\x00")
				byKey[id] = append(byKey[id], r.Value)
			}
			sh.rows++
			sh.naive += 16 + 12*int64(len(r.Buckets)) // int64 time and value; int32 index, int64 count
			sh.buckets += int64(len(r.Buckets))
			sh.dist = sh.dist || len(r.Buckets) > 0
			for _, b := range r.Buckets {
				sh.poisson += poissonBits(b.Count)
			}
		}
	}
	if !sh.dist {
		for _, vals := range byKey {
			h0, h1 := counterFloor(vals)
			sh.h0 += h0
			sh.h1 += h1
		}
	}
	return sh
}

// counterFloor estimates the bits a counter column's values cost at the
// least, for a coder that writes each number as its order of magnitude
// and the bits below its leading one: the values are divided by their
// greatest common divisor, then taken as they are or as differences from
// the previous (whichever is smaller); each number's sign and bit length
// is a symbol, costing its empirical entropy — order 0 (h0), or given
// the previous number's symbol (order 1, h1: with a few hundred samples,
// an underestimate, the statistics being learnt from the data they
// code) — and the bits below the leading one cost one bit each (they are
// the noise of a noisy count). The coder is not told the statistics: it
// must learn them as it goes.
func counterFloor(vals []int64) (h0, h1 float64) {
	var g uint64
	for _, v := range vals {
		a := uint64(v)
		if v < 0 {
			a = -a
		}
		for b := g; b != 0; {
			a, b = b, a%b
		}
		g = a
	}
	if g == 0 {
		return 0, 0
	}
	best0, best1 := math.Inf(1), math.Inf(1)
	for _, delta := range []bool{false, true} {
		type sym struct{ neg, n int }
		var prev int64
		var mant float64
		c0 := map[sym]float64{}
		c1 := map[[2]sym]float64{}
		ctx := map[sym]float64{}
		last := sym{-1, -1}
		for _, v := range vals {
			x := v / int64(g)
			if delta {
				x, prev = x-prev, x
			}
			s := sym{0, 0}
			a := uint64(x)
			if x < 0 {
				s.neg, a = 1, -a
			}
			s.n = bits.Len64(a)
			mant += float64(max(s.n-1, 0))
			c0[s]++
			c1[[2]sym{last, s}]++
			ctx[last]++
			last = s
		}
		n := float64(len(vals))
		h := mant
		for _, c := range c0 {
			h -= c * math.Log2(c/n)
		}
		best0 = min(best0, h)
		h = mant
		for k, c := range c1 {
			h -= c * math.Log2(c/ctx[k[0]])
		}
		best1 = min(best1, h)
	}
	return best0, best1
}

func compression(path string, rec recording) error {
	names := make([]string, 0, len(rec))
	var first, last time.Time
	for name, secs := range rec {
		names = append(names, name)
		if len(secs) > 0 && (first.IsZero() || secs[0].Time.Before(first)) {
			first = secs[0].Time
		}
		if len(secs) > 0 && secs[len(secs)-1].Time.After(last) {
			last = secs[len(secs)-1].Time
		}
	}
	slices.Sort(names)
	fmt.Printf("recording: %s, %d datasets, %s to %s (%d s)\n\n", path, len(names),
		first.Format("2006-01-02 15:04:05"), last.Format("15:04:05 MST"), last.Sub(first)/time.Second+1)
	sz, err := measure(rec)
	if err != nil {
		return err
	}
	fmt.Println("Bytes on disk, per-second tier (compressed chunks, keys and checksums included), chunk formats 1, 2 (before) and 3 (now),")
	fmt.Println("and Prometheus's TSDB chunk encoders run on the same series (chunks as a block stores them; see prom.go):")
	fmt.Printf("%-38s %-13s %6s %7s %7s %7s %7s %11s %9s %7s | %-9s %9s %9s %9s\n", "dataset", "unit", "count", "buckets", "v1", "v2", "v3", "floor",
		"all tiers", "naive", "Prom", "cumul.", "per-s", "classic")
	for _, name := range names {
		sh := shapeOf(rec[name])
		if sh.rows == 0 {
			continue
		}
		n := float64(sh.rows)
		ps, err := promEncode(rec[name])
		if err != nil {
			return fmt.Errorf("%s: Prometheus's encoders: %w", name, err)
		}
		floor := fmt.Sprintf("%.2f/%.2f", sh.h0/8/n, sh.h1/8/n)
		prom := fmt.Sprintf("%-9s %9.2f %9.2f", "counter", float64(ps.total)/n, float64(ps.gauge)/n)
		if sh.dist {
			floor = fmt.Sprintf("%.2f", sh.poisson/8/n)
			prom = fmt.Sprintf("%-9s %9.2f %9.2f %9.2f", "histogram", float64(ps.native)/n, float64(ps.nativeGauge)/n, float64(ps.classic)/n)
		}
		unit := "sample"
		if sh.dist {
			unit = "distr-second"
		}
		fmt.Printf("%-38s %-13s %6d %7.1f %7.2f %7.2f %7.2f %11s %9.2f %7.1f | %s\n", name, unit, sh.rows, float64(sh.buckets)/n,
			float64(sz[name].sec[1])/n, float64(sz[name].sec[2])/n, float64(sz[name].sec[3])/n, floor, float64(sz[name].all[3])/n, float64(sh.naive)/n, prom)
	}
	fmt.Println("(count: samples or distribution-seconds (a key's buckets in one second); buckets: a distribution-second's, on average;")
	fmt.Println(" floor, distributions: the Poisson floor, what coding the counts alone would cost if the events of each bucket arrived")
	fmt.Println(" independently and the coder knew every bucket's rate every second (the count itself), for free; absent buckets,")
	fmt.Println(" positions and keys cost nothing: no lossless coder of Poisson counts does better on average;")
	fmt.Println(" floor, counters: order-0/order-1 empirical entropy of each number's sign and bit length (values over their divisor, or")
	fmt.Println(" their differences, the smaller), plus the bits below the leading one at one bit each; statistics given for free;")
	fmt.Println(" all tiers: chunk format 3, with the minutes and hours, the current ones still uncompressed head records;")
	fmt.Println(" naive: 8-byte time and 8-byte value per sample, plus 4-byte index and 8-byte count per bucket;")
	fmt.Println(" Prom, counters: XOR chunks of the running total (cumul., what scraping sonded stores) and of the per-second values;")
	fmt.Println(" Prom, histograms: integer native histograms with custom buckets (the dataset's), cumulative (cumul., as scraped)")
	fmt.Println(" and per second (gauge histograms); classic: sonded's classic exposition, an XOR series per le bound and _count;")
	fmt.Println(" _sum left out, the index not counted)")
	fmt.Println()
	return nil
}

// halves measures the distributions of each half of a recording of
// record-agent.sh apart: the machine as it was, then with the load added.
func halves(rec recording) error {
	var first, last time.Time
	for _, secs := range rec {
		if len(secs) > 0 && (first.IsZero() || secs[0].Time.Before(first)) {
			first = secs[0].Time
		}
		if len(secs) > 0 && secs[len(secs)-1].Time.After(last) {
			last = secs[len(secs)-1].Time
		}
	}
	mid := first.Add(last.Sub(first) / 2)
	var parts [2]recording
	for i := range parts {
		parts[i] = recording{}
	}
	var names []string
	for name, secs := range rec {
		if !shapeOf(secs).dist {
			continue
		}
		names = append(names, name)
		for _, s := range secs {
			i := 0
			if !s.Time.Before(mid) {
				i = 1
			}
			parts[i][name] = append(parts[i][name], s)
		}
	}
	slices.Sort(names)
	var sz [2]map[string]*sizes
	for i := range parts {
		var err error
		if sz[i], err = measure(parts[i]); err != nil {
			return err
		}
	}
	fmt.Printf("The same, each half apart: before %s UTC the machine as it was (typical), then with the load added (heavy):\n", mid.Format("15:04:05"))
	fmt.Printf("%-30s | %6s %7s %7s %7s %7s %7s | %6s %7s %7s %7s %7s %7s\n", "dataset", "count", "buckets", "v1", "v2", "v3", "floor", "count", "buckets", "v1", "v2", "v3", "floor")
	for _, name := range names {
		fmt.Printf("%-30s", name)
		for i := range parts {
			sh := shapeOf(parts[i][name])
			n := float64(max(sh.rows, 1))
			fmt.Printf(" | %6d %7.1f %7.2f %7.2f %7.2f %7.2f", sh.rows, float64(sh.buckets)/n, float64(sz[i][name].sec[1])/n,
				float64(sz[i][name].sec[2])/n, float64(sz[i][name].sec[3])/n, sh.poisson/8/n)
		}
		fmt.Println()
	}
	fmt.Println()
	return nil
}

// poissonBits is the entropy, in bits, of a Poisson count whose mean is
// c: what a count c costs at the least when the events arrive
// independently and the coder knows their rate.
func poissonBits(c int64) float64 {
	if c <= 0 {
		return 0
	}
	if h, ok := poissonCache[c]; ok {
		return h
	}
	l := float64(c)
	var h float64
	if c > 5000 {
		h = 0.5 * math.Log2(2*math.Pi*math.E*l) // the normal approximation, within 1e-4 bit here
	} else {
		lp := -l // ln p(0)
		for k := 0; ; k++ {
			if k > 0 {
				lp += math.Log(l) - math.Log(float64(k))
			}
			p := math.Exp(lp)
			h -= p * lp / math.Ln2
			if float64(k) > l && p < 1e-15 {
				break
			}
		}
	}
	poissonCache[c] = h
	return h
}

var poissonCache = map[int64]float64{}

// commitCost times a durable second of ten datasets: one AppendBatch, and
// ten Appends.
func commitCost(ops []analytics.Second) error {
	dir, err := os.MkdirTemp("", "bench-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db, err := store.Open(dir, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	const seconds, datasets = 30, 10
	base := time.Now().Truncate(time.Second)
	var batchTime, appendTime time.Duration
	for i := range seconds {
		var batch []store.Sample
		for d := range datasets {
			s := ops[i%len(ops)]
			s.Time = base.Add(time.Duration(2*i) * time.Second)
			batch = append(batch, store.Sample{Dataset: fmt.Sprint("d", d), Second: s})
		}
		start := time.Now()
		if err := db.AppendBatch(batch); err != nil {
			return err
		}
		batchTime += time.Since(start)
		start = time.Now()
		for _, b := range batch {
			b.Second.Time = b.Second.Time.Add(time.Second)
			if err := db.Append(b.Dataset, b.Second); err != nil {
				return err
			}
		}
		appendTime += time.Since(start)
	}
	fmt.Printf("A durable second of %d datasets (fsynced, mean of %d): one AppendBatch %.2f ms, %d Appends %.2f ms\n\n",
		datasets, seconds, ms(batchTime/seconds), datasets, ms(appendTime/seconds))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// generator makes seconds of a 50-key breakdown from the recorded shape:
// the recording's 50 most frequent keys, each second's values those of a
// recorded second scaled by a random factor in [0.8, 1.2), absent where the
// recording has the key absent.
type generator struct {
	keys []string
	vals []map[string]int64
	r    *rand.Rand
}

func newGenerator(ops []analytics.Second, nkeys int) *generator {
	freq := map[string]int{}
	for _, s := range ops {
		for _, r := range s.Rows {
			freq[r.Key[0]]++
		}
	}
	g := &generator{r: rand.New(rand.NewPCG(1, 2))}
	for k := range freq {
		g.keys = append(g.keys, k)
	}
	sort.Slice(g.keys, func(i, j int) bool {
		a, b := g.keys[i], g.keys[j]
		return freq[a] > freq[b] || freq[a] == freq[b] && a < b
	})
	g.keys = g.keys[:min(nkeys, len(g.keys))]
	for _, s := range ops {
		m := map[string]int64{}
		for _, r := range s.Rows {
			m[r.Key[0]] = r.Value
		}
		g.vals = append(g.vals, m)
	}
	return g
}

func (g *generator) second(i int, t time.Time) analytics.Second {
	s := analytics.Second{Time: t, Samples: 1}
	m := g.vals[i%len(g.vals)]
	for _, k := range g.keys {
		if v, ok := m[k]; ok {
			s.Rows = append(s.Rows, analytics.Row{Key: []string{k}, Value: v * int64(800+g.r.IntN(400)) / 1000})
		}
	}
	return s
}

// heatName is the heat map readTimes reads back.
const heatName = "syscall.latency"

// readFormats are the chunk formats whose reads are timed: the first,
// and the one written now (format 2 decodes counters as format 1 does, and
// distributions as format 3 does, with one more modelled bit a count).
var readFormats = [2]int{1, 3}

// readTimes appends a generated week of a 50-key breakdown, and an hour of
// a recorded heat map (the recording's seconds over again), to two stores,
// one writing chunks of format 1 and one of format 3, then times reads of
// each, the two stores in turn: the time, and the process's CPU time
// (user and system, getrusage: the machine is shared, so the time
// includes waiting for a CPU).
func readTimes(ops, heat []analytics.Second) error {
	const week = 7 * 24 * 3600
	end := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	start := end.Add(-week * time.Second)
	var dbs [2]*store.DB
	for i, v := range readFormats {
		dir, err := os.MkdirTemp("", "bench-store-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db, err := store.Open(dir, &store.Options{NoSync: true, ChunkVersion: v, Now: func() time.Time { return end }})
		if err != nil {
			return err
		}
		defer db.Close()
		dbs[i] = db
		g := newGenerator(ops, 50)
		began := time.Now()
		var batch []store.Sample
		var rows int64
		for i := range week {
			s := g.second(i, start.Add(time.Duration(i)*time.Second))
			rows += int64(len(s.Rows))
			batch = append(batch, store.Sample{Dataset: "syscall.ops[name]", Second: s})
			if len(batch) == 3600 || i == week-1 {
				if err := db.AppendBatch(batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		var buckets int64
		if len(heat) > 0 {
			// The hour before end, the recording's seconds in turn.
			span := heat[len(heat)-1].Time.Sub(heat[0].Time) + time.Second
			var batch []store.Sample
			for i := 0; i < 3600; i++ {
				s := heat[i%len(heat)]
				s.Time = end.Add(-time.Hour).Add(time.Duration(i/len(heat))*span + s.Time.Sub(heat[0].Time))
				if !s.Time.Before(end) {
					break
				}
				for _, r := range s.Rows {
					buckets += int64(len(r.Buckets))
				}
				batch = append(batch, store.Sample{Dataset: heatName, Second: s})
			}
			if err := db.AppendBatch(batch); err != nil {
				return err
			}
		}
		if err := db.Flush(); err != nil {
			return err
		}
		_, sec := db.TierSize("syscall.ops[name]", analytics.PerSecond)
		_, min := db.TierSize("syscall.ops[name]", analytics.PerMinute)
		fmt.Printf("Format %d: generated a week of a %d-key breakdown, %.1f keys a second on average, appended in %.1f s (hour batches, no fsync);\n",
			v, len(g.keys), float64(rows)/week, time.Since(began).Seconds())
		fmt.Printf("  on disk: seconds %.2f B/sample; minutes %d bytes; and an hour of %s (%d buckets)\n", float64(sec)/float64(rows), min, heatName, buckets)
	}
	for _, q := range []struct {
		what, name string
		from, to   time.Time
		g          analytics.Granularity
	}{
		{"one hour of per-second data of the 50-key breakdown", "syscall.ops[name]", end.Add(-time.Hour), end, analytics.PerSecond},
		{"one week of per-minute data of the 50-key breakdown", "syscall.ops[name]", start, end, analytics.PerMinute},
		{"one hour of the per-second heat map " + heatName, heatName, end.Add(-time.Hour), end, analytics.PerSecond},
	} {
		if q.name == heatName && len(heat) == 0 {
			continue
		}
		var times, cpus [2][]time.Duration
		var n [2]int
		for range 7 {
			for v, db := range dbs {
				c0, t0 := cpuTime(), time.Now()
				got, err := db.Read(q.name, q.from, q.to, q.g)
				if err != nil {
					return err
				}
				times[v] = append(times[v], time.Since(t0))
				cpus[v] = append(cpus[v], cpuTime()-c0)
				n[v] = len(got)
			}
		}
		fmt.Printf("  read %s, %d intervals:\n", q.what, n[1])
		for v := range times {
			t, c := times[v], cpus[v]
			slices.Sort(t)
			slices.Sort(c)
			fmt.Printf("    format %d: median %.1f ms (min %.1f, max %.1f), CPU median %.1f ms (min %.1f)\n", readFormats[v],
				ms(t[len(t)/2]), ms(t[0]), ms(t[len(t)-1]), ms(c[len(c)/2]), ms(c[0]))
		}
		fmt.Println("    (7 reads each, the two formats in turn)")
	}
	return nil
}
