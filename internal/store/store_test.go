package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// t0 is the first second the tests append: on an hour, so that minutes
// and hours are whole.
var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// Small chunk windows, so that tests cross many of them.
var testSpans = [3]int64{120, 3600, 86400}

func sec(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }

// counters is second i of a counter dataset broken down by two
// dimensions: keys come and go (an absent key is absent, not zero), some
// seconds have no rows at all, values range from 0 to 2^40.
func counters(i int) analytics.Second {
	r := rand.New(rand.NewPCG(uint64(i), 1))
	s := analytics.Second{Time: sec(i), Samples: 1}
	if i%17 == 5 {
		return s
	}
	for _, exec := range []string{"dd", "postgres", "sshd"} {
		for _, name := range []string{"read", "write", "openat", "close"} {
			if r.IntN(10) < 3 {
				continue
			}
			v := r.Int64N(1000)
			if name == "read" && exec == "dd" {
				v = int64(i) << 30
			}
			s.Rows = append(s.Rows, analytics.Row{Key: []string{exec, name}, Value: v})
		}
	}
	r.Shuffle(len(s.Rows), func(a, b int) { s.Rows[a], s.Rows[b] = s.Rows[b], s.Rows[a] })
	return s
}

// gauges is second i of a gauge dataset with one key part, and one key
// with an empty part.
func gauges(i int) analytics.Second {
	r := rand.New(rand.NewPCG(uint64(i), 2))
	s := analytics.Second{Time: sec(i), Samples: 1}
	for _, mode := range []string{"idle", "kernel", "user", ""} {
		s.Rows = append(s.Rows, analytics.Row{Key: []string{mode}, Value: r.Int64N(100000) - 50})
	}
	return s
}

// latency is second i of a distribution dataset without breakdowns: a
// log-linear histogram whose buckets come and go.
func latency(i int) analytics.Second {
	r := rand.New(rand.NewPCG(uint64(i), 3))
	s := analytics.Second{Time: sec(i), Samples: 1}
	row := analytics.Row{}
	for idx := int32(0); idx < 40; idx++ {
		if r.IntN(3) == 0 {
			continue
		}
		b := bucket(idx, r.Int64N(5000)+1)
		row.Buckets = append(row.Buckets, b)
		row.Value += b.Count
	}
	if len(row.Buckets) > 0 {
		s.Rows = []analytics.Row{row}
	}
	return s
}

// bucket is bucket idx of a log-linear scale, the last one open.
func bucket(idx int32, count int64) analytics.Bucket {
	b := analytics.Bucket{Index: idx, Min: int64(idx) * int64(idx) * 10, Count: count}
	b.Max = analytics.Unbounded
	if idx < 39 {
		b.Max = analytics.Bound(int64(idx+1) * int64(idx+1) * 10)
	}
	return b
}

var generators = map[string]func(int) analytics.Second{
	"syscall.ops[execname][name]": counters,
	"cpu.utilization[mode]":       gauges,
	"syscall.latency":             latency,
}

// want is what the store must give back for second i of gen.
func want(t *testing.T, gen func(int) analytics.Second, i int) analytics.Second {
	t.Helper()
	s := gen(i)
	rows, err := normalize(s.Rows)
	if err != nil {
		t.Fatal(err)
	}
	return analytics.Second{Time: s.Time, Samples: 1, Rows: rows}
}

// testOptions: no fsync, small chunk windows, and a clock stopped at t0,
// so that retention keeps everything.
func testOptions() *Options {
	return &Options{NoSync: true, spans: testSpans, Now: func() time.Time { return t0 }}
}

func open(t *testing.T, dir string, o *Options) *DB {
	t.Helper()
	db, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// fill appends seconds [from, to) of every generator.
func fill(t *testing.T, db *DB, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		var batch []Sample
		for name, gen := range generators {
			batch = append(batch, Sample{Dataset: name, Second: gen(i)})
		}
		if err := db.AppendBatch(batch); err != nil {
			t.Fatalf("second %d: %v", i, err)
		}
	}
}

func read(t *testing.T, db *DB, name string, from, to time.Time, g analytics.Granularity) []analytics.Second {
	t.Helper()
	got, err := db.Read(name, from, to, g)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkSeconds checks that the dataset's seconds [from, to) are exactly
// the generator's.
func checkSeconds(t *testing.T, db *DB, name string, from, to int) {
	t.Helper()
	gen := generators[name]
	got := read(t, db, name, sec(from), sec(to), analytics.PerSecond)
	if len(got) != to-from {
		t.Fatalf("%s: %d seconds, want %d", name, len(got), to-from)
	}
	for i := from; i < to; i++ {
		if w := want(t, gen, i); !reflect.DeepEqual(got[i-from], w) {
			t.Fatalf("%s second %d:\n got %+v\nwant %+v", name, i, got[i-from], w)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, testOptions())
	const n = 500 // several closed chunks and an open one
	fill(t, db, 0, n)
	for name := range generators {
		checkSeconds(t, db, name, 0, n)
		checkSeconds(t, db, name, 130, 250) // a range across chunks
	}
	// A second of no rows is there, with no rows; an absent key is absent.
	got := read(t, db, "syscall.ops[execname][name]", sec(5), sec(6), analytics.PerSecond)
	if len(got) != 1 || got[0].Rows != nil {
		t.Fatalf("empty second: %+v", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open(t, dir, testOptions())
	defer db.Close()
	for name := range generators {
		checkSeconds(t, db, name, 0, n)
		if last := db.Last(name); !last.Equal(sec(n - 1)) {
			t.Errorf("%s: last %v, want %v", name, last, sec(n-1))
		}
	}
	// Appending goes on after a reopen, in the same open chunk.
	fill(t, db, n, n+50)
	for name := range generators {
		checkSeconds(t, db, name, 0, n+50)
	}
	// Flush in the middle of windows; appends extend the flushed chunks.
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	for name := range generators {
		if in, _ := db.TierSize(name, analytics.PerSecond); in != 0 {
			t.Errorf("%s: %d bytes in core after Flush", name, in)
		}
	}
	fill(t, db, n+50, n+200)
	for name := range generators {
		checkSeconds(t, db, name, 0, n+200)
		checkRollups(t, db, name, 0, n+200, (n+200+59)/60)
	}
}

// TestBatch appends many seconds of a dataset in one commit.
func TestBatch(t *testing.T) {
	db := open(t, t.TempDir(), testOptions())
	defer db.Close()
	var batch []Sample
	for i := range 1000 {
		batch = append(batch, Sample{Dataset: "syscall.latency", Second: latency(i)})
	}
	if err := db.AppendBatch(batch); err != nil {
		t.Fatal(err)
	}
	checkSeconds(t, db, "syscall.latency", 0, 1000)
	checkRollups(t, db, "syscall.latency", 0, 1000, 17)
}

func TestAppendErrors(t *testing.T) {
	db := open(t, t.TempDir(), testOptions())
	defer db.Close()
	if err := db.Append("a", analytics.Second{Time: sec(10)}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []analytics.Second{{Time: sec(10)}, {Time: sec(9)}, {Time: sec(10).Add(500 * time.Millisecond)}} {
		if err := db.Append("a", s); err == nil {
			t.Errorf("append at %v after %v: no error", s.Time, sec(10))
		}
	}
	twice := analytics.Second{Time: sec(11), Rows: []analytics.Row{{Key: []string{"x"}, Value: 1}, {Key: []string{"x"}, Value: 2}}}
	if err := db.Append("a", twice); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a key twice: %v", err)
	}
	if err := db.Append("bad\x00name", analytics.Second{Time: sec(11)}); err == nil {
		t.Error("a name with NUL: no error")
	}
	batch := []Sample{{Dataset: "b", Second: analytics.Second{Time: sec(2)}}, {Dataset: "b", Second: analytics.Second{Time: sec(1)}}}
	if err := db.AppendBatch(batch); err == nil {
		t.Error("a batch out of order: no error")
	}
	if got := db.Datasets(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("a failed batch left datasets %v", got)
	}
}

// sum adds intervals up as a coarser tier must.
func sum(ivs []analytics.Second) analytics.Second {
	var out analytics.Second
	for _, iv := range ivs {
		out.Samples += iv.Samples
		out.Rows = merge(out.Rows, iv.Rows)
	}
	if len(out.Rows) == 0 {
		out.Rows = nil
	}
	return out
}

// checkRollups checks that every minute in [from, to) is the sum of its
// seconds (as the generator made them), and every hour the sum of its
// minutes.
func checkRollups(t *testing.T, db *DB, name string, from, to int, wantMinutes int) {
	t.Helper()
	gen := generators[name]
	minutes := read(t, db, name, sec(from), sec(to), analytics.PerMinute)
	if len(minutes) != wantMinutes {
		t.Fatalf("%s: %d minutes, want %d", name, len(minutes), wantMinutes)
	}
	for _, m := range minutes {
		var secs []analytics.Second
		first := int(m.Time.Sub(t0) / time.Second)
		for i := first; i < first+60 && i < to; i++ {
			secs = append(secs, want(t, gen, i))
		}
		w := sum(secs)
		w.Time = m.Time
		if !reflect.DeepEqual(m, w) {
			t.Fatalf("%s minute %v:\n got %+v\nwant %+v", name, m.Time, m, w)
		}
	}
	hours := read(t, db, name, sec(from), sec(to), analytics.PerHour)
	for _, h := range hours {
		var ms []analytics.Second
		for _, m := range minutes {
			if m.Time.Truncate(time.Hour).Equal(h.Time) {
				ms = append(ms, m)
			}
		}
		w := sum(ms)
		w.Time = h.Time
		if !reflect.DeepEqual(h, w) {
			t.Fatalf("%s hour %v:\n got %+v\nwant %+v", name, h.Time, h, w)
		}
	}
}

func TestRollups(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, testOptions())
	const n = 2*3600 + 150 // two whole hours and a part
	fill(t, db, 0, n)
	for name := range generators {
		checkRollups(t, db, name, 0, n, (n+59)/60)
		// The seconds that are there sum to the minutes, bucket by bucket.
		checkSeconds(t, db, name, 0, n)
	}
	hours := read(t, db, "syscall.latency", sec(0), sec(n), analytics.PerHour)
	if len(hours) != 3 || hours[0].Samples != 3600 || hours[2].Samples != 150 {
		t.Fatalf("hours: %d, samples %v", len(hours), hours)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open(t, dir, testOptions())
	defer db.Close()
	// The open minute and hour are taken up again after a reopen.
	fill(t, db, n, n+100)
	for name := range generators {
		checkRollups(t, db, name, 0, n+100, (n+100+59)/60)
	}
}

// clock is a clock the test sets.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func TestRetention(t *testing.T) {
	clk := &clock{now: t0}
	o := testOptions()
	o.Now = clk.Now
	o.Seconds = 10 * time.Minute
	o.Minutes = time.Minute // less than the seconds: raised to 10 minutes
	db := open(t, t.TempDir(), o)
	defer db.Close()
	const n = 45 * 60
	for i := 0; i < n; i++ {
		clk.now = sec(i)
		fill(t, db, i, i+1)
	}
	keep := 10*60 + int(testSpans[0]) // retention is whole chunks
	for name := range generators {
		got := read(t, db, name, sec(0), sec(n), analytics.PerSecond)
		if len(got) == 0 {
			t.Fatalf("%s: no seconds left", name)
		}
		oldest := int(got[0].Time.Sub(t0) / time.Second)
		// Retention runs once a minute: a minute more may be kept.
		if oldest < n-keep-60 || oldest > n-10*60 {
			t.Fatalf("%s: oldest second %d, want in [%d, %d]", name, oldest, n-keep-60, n-10*60)
		}
		checkSeconds(t, db, name, oldest, n)
		// The minutes kept the seconds retention dropped, exactly.
		checkRollups(t, db, name, 0, n, 45)
	}
	// Past the minutes' retention, raised to the seconds', old minutes go.
	clk.now = sec(n + 3600*24)
	fill(t, db, n+3600*24, n+3600*24+1)
	for name := range generators {
		if got := read(t, db, name, sec(0), sec(n), analytics.PerMinute); len(got) != 0 {
			t.Errorf("%s: %d minutes kept past their retention", name, len(got))
		}
		if got := read(t, db, name, sec(0), sec(n), analytics.PerHour); len(got) == 0 {
			t.Errorf("%s: hours gone before their retention", name)
		}
	}
}

func TestPrune(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, testOptions())
	const n = 3 * 600
	fill(t, db, 0, n)
	const cut = 1000 // in the middle of a chunk
	if err := db.Prune(analytics.PerSecond, sec(cut)); err != nil {
		t.Fatal(err)
	}
	for name := range generators {
		if got := read(t, db, name, sec(0), sec(cut), analytics.PerSecond); len(got) != 0 {
			t.Fatalf("%s: %d seconds before the prune point", name, len(got))
		}
		checkSeconds(t, db, name, cut, n)
		checkRollups(t, db, name, 0, n, n/60)
	}
	// Pruning minutes prunes the seconds as well; hours stay.
	if err := db.Prune(analytics.PerMinute, sec(n-30)); err != nil {
		t.Fatal(err)
	}
	for name := range generators {
		if got := read(t, db, name, sec(0), sec(n), analytics.PerMinute); len(got) != 0 {
			t.Fatalf("%s: %d minutes left", name, len(got))
		}
		checkSeconds(t, db, name, n-30, n)
		if got := read(t, db, name, sec(0), sec(n), analytics.PerHour); len(got) != 1 || got[0].Samples != n {
			t.Fatalf("%s: hours %+v", name, got)
		}
	}
	db.Close()
	db = open(t, dir, testOptions())
	defer db.Close()
	for name := range generators {
		checkSeconds(t, db, name, n-30, n)
	}
}

func TestDiskCap(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, testOptions())
	fill(t, db, 0, 1800)
	full := db.DiskBytes()
	db.Close()

	o := testOptions()
	o.MaxBytes = full / 2
	db = open(t, t.TempDir(), o)
	defer db.Close()
	fill(t, db, 0, 1800)
	if got := db.DiskBytes(); got > o.MaxBytes {
		t.Fatalf("%d bytes on disk, cap %d", got, o.MaxBytes)
	}
	for name := range generators {
		secs := read(t, db, name, sec(0), sec(1800), analytics.PerSecond)
		if len(secs) == 0 || len(secs) == 1800 {
			t.Fatalf("%s: %d seconds under the cap", name, len(secs))
		}
		// The oldest seconds went first: what is left is the newest.
		checkSeconds(t, db, name, 1800-len(secs), 1800)
		// The minutes were not touched.
		checkRollups(t, db, name, 0, 1800, 30)
	}
}

func TestSizeAndDelete(t *testing.T) {
	db := open(t, t.TempDir(), testOptions())
	defer db.Close()
	fill(t, db, 0, 300)
	var total int64
	for name := range generators {
		in, disk := db.Size(name)
		if in <= 0 || disk <= in {
			t.Errorf("%s: in core %d, on disk %d", name, in, disk)
		}
		total += disk
	}
	if db.DiskBytes() != total {
		t.Errorf("disk bytes %d, datasets' sum %d", db.DiskBytes(), total)
	}
	if err := db.Delete("syscall.latency"); err != nil {
		t.Fatal(err)
	}
	if in, disk := db.Size("syscall.latency"); in != 0 || disk != 0 {
		t.Errorf("deleted: in core %d, on disk %d", in, disk)
	}
	if got := read(t, db, "syscall.latency", sec(0), sec(300), analytics.PerSecond); len(got) != 0 {
		t.Errorf("deleted: %d seconds", len(got))
	}
	if !db.Last("syscall.latency").IsZero() {
		t.Error("deleted: a last second")
	}
	if got := db.Datasets(); len(got) != 2 {
		t.Errorf("datasets %v", got)
	}
	checkSeconds(t, db, "syscall.ops[execname][name]", 0, 300)
}

func TestMeta(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, testOptions())
	for _, k := range []string{"dataset/b", "dataset/a", "worksheet/1", "event/1"} {
		if err := db.PutMeta(k, []byte("doc "+k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.DeleteMeta("dataset/b"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, dir, testOptions())
	defer db.Close()
	keys, err := db.ListMeta("dataset/")
	if err != nil || !slices.Equal(keys, []string{"dataset/a"}) {
		t.Fatalf("list: %v %v", keys, err)
	}
	if v, err := db.GetMeta("worksheet/1"); err != nil || string(v) != "doc worksheet/1" {
		t.Fatalf("get: %q %v", v, err)
	}
	if v, err := db.GetMeta("dataset/b"); err != nil || v != nil {
		t.Fatalf("get deleted: %q %v", v, err)
	}
}

// TestCorruptChunk flips bytes of one chunk in the file, of a counter
// dataset and of a distribution dataset, in each chunk format: the chunk
// is reported and skipped, every other one reads as it was.
func TestCorruptChunk(t *testing.T) {
	for _, name := range []string{"syscall.ops[execname][name]", "syscall.latency"} {
		for _, version := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/v%d", name, version), func(t *testing.T) { testCorruptChunk(t, name, version) })
		}
	}
}

func testCorruptChunk(t *testing.T, name string, version int) {
	dir := t.TempDir()
	o := testOptions()
	o.ChunkVersion = version
	db := open(t, dir, o)
	const n = 600 // chunks of 120 seconds: 4 closed, 1 open
	fill(t, db, 0, n)
	victim := 240 // the third chunk's window
	var chunk []byte
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		chunk = bytes.Clone(tx.Bucket(bucketChunks).Get(recKey(name, 0, sec(victim).Unix())))
		return nil
	}); err != nil || len(chunk) < 40 || chunk[0] != byte(version) {
		t.Fatalf("chunk: %d bytes, %v", len(chunk), err)
	}
	db.Close()

	path := filepath.Join(dir, "store.db")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(file, chunk)
	if at < 0 || bytes.Contains(file[at+1:], chunk) {
		t.Fatal("the chunk is not once in the file")
	}
	for _, off := range []int{len(chunk) / 2, len(chunk) - 3} {
		file[at+off] ^= 0x5a
	}
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}

	db = open(t, dir, o)
	defer db.Close()
	got := read(t, db, name, sec(0), sec(n), analytics.PerSecond)
	if len(got) != n-120 {
		t.Fatalf("%d seconds read, want %d", len(got), n-120)
	}
	checkSeconds(t, db, name, 0, victim)
	checkSeconds(t, db, name, victim+120, n)
	wantCorrupt := fmt.Sprintf("%s second chunk %s", name, sec(victim).Format(time.RFC3339))
	if c := db.Corrupt(); !slices.Equal(c, []string{wantCorrupt}) {
		t.Fatalf("corrupt: %q, want %q", c, wantCorrupt)
	}
	// The other datasets and tiers are whole; appending goes on.
	for other := range generators {
		if other != name {
			checkSeconds(t, db, other, 0, n)
		}
		checkRollups(t, db, other, 0, n, n/60)
	}
	fill(t, db, n, n+10)
	checkSeconds(t, db, name, n-10, n+10)
}
