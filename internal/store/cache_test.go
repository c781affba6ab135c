package store

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sonde-trace/sonde/internal/analytics"
)

var tiers = []analytics.Granularity{analytics.PerSecond, analytics.PerMinute, analytics.PerHour}

// checkCache checks that reads through the cache, cold and warm, give
// what reads without it give, over every dataset and tier and several
// ranges of the seconds [0, end), and that a caller changing what it was
// given does not change what the next read gives.
func checkCache(t *testing.T, db *DB, stage string, end int) {
	t.Helper()
	checkEntries(t, db, stage)
	names := db.Datasets()
	for name := range generators {
		names = append(names, name)
	}
	ranges := [][2]int{{-86400, end + 86400}, {end / 3, 2 * end / 3}, {end - 500, end}, {end - 130, end - 10}}
	for _, name := range names {
		for _, g := range tiers {
			for _, r := range ranges {
				from, to := sec(r[0]), sec(r[1])
				what := fmt.Sprintf("%s: %s %s [%d, %d)", stage, name, g, r[0], r[1])
				want, err := db.read(name, from, to, g, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					got := read(t, db, name, from, to, g)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, read %d through the cache:\n got %s\nwant %s", what, i, brief(got), brief(want))
					}
					scribble(got)
				}
			}
		}
	}
}

// checkEntries checks that the cache holds only chunks the store has, as
// it has them: the writers drop what they change or delete.
func checkEntries(t *testing.T, db *DB, stage string) {
	t.Helper()
	db.mu.RLock()
	defer db.mu.RUnlock()
	db.cache.mu.Lock()
	defer db.cache.mu.Unlock()
	err := db.bolt.View(func(tx *bolt.Tx) error {
		chunks := tx.Bucket(bucketChunks)
		for k, el := range db.cache.entries {
			v := chunks.Get(recKey(k.name, k.ti, k.win))
			if k.head {
				v = nil
				if s := db.series[k.name]; s != nil {
					if i := slices.Index(s.open[k.ti].times, k.win); i >= 0 {
						v = s.open[k.ti].heads[i]
					}
				}
			}
			if v == nil {
				return fmt.Errorf("%s: the cache holds %v, which the store no longer has", stage, k)
			}
			if !reflect.DeepEqual(el.Value.(*cacheEntry).raw, v) {
				return fmt.Errorf("%s: the cache holds %v as it was before it was rewritten", stage, k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scribble changes what a read returned, as a caller may (but the keys).
func scribble(secs []analytics.Second) {
	for i := range secs {
		secs[i].Samples += 7
		for j := range secs[i].Rows {
			r := &secs[i].Rows[j]
			r.Value = -r.Value - 1
			for k := range r.Buckets {
				r.Buckets[k].Count++
			}
		}
		secs[i].Rows = append(secs[i].Rows, analytics.Row{Value: 42})
	}
}

// brief describes intervals for a failure message.
func brief(secs []analytics.Second) string {
	if len(secs) == 0 {
		return "none"
	}
	var rows, sum int64
	for _, s := range secs {
		for _, r := range s.Rows {
			rows++
			sum += r.Value
		}
	}
	return fmt.Sprintf("%d intervals %v to %v, %d rows, values summing to %d", len(secs),
		secs[0].Time.Format(time.TimeOnly), secs[len(secs)-1].Time.Format(time.TimeOnly), rows, sum)
}

// other is a distribution unlike latency's, for a dataset destroyed and
// made again under its name.
func other(i int) analytics.Second {
	s := latency(i + 100000)
	s.Time = sec(i)
	return s
}

// appendSeconds appends seconds [from, to) of gen to the dataset, in
// batches of a few hundred.
func appendSeconds(t *testing.T, db *DB, name string, gen func(int) analytics.Second, from, to int) {
	t.Helper()
	var batch []Sample
	for i := from; i < to; i++ {
		batch = append(batch, Sample{Dataset: name, Second: gen(i)})
		if len(batch) == 300 || i == to-1 {
			if err := db.AppendBatch(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// TestCacheSameAsUncached reads, through the cache and without it, after
// each of the ways the store changes a chunk: a window sealed, a chunk
// flushed and then extended (a chunk still being appended), minutes
// rolled into sealed chunks, the current minute and hour rewritten each
// second, Prune trimming a chunk in its middle or an open chunk, a
// dataset destroyed and made again under its name with other data,
// retention deleting whole chunks. The writers drop what they change,
// so no entry is found stale.
func TestCacheSameAsUncached(t *testing.T) {
	clk := &clock{now: t0}
	o := testOptions()
	o.Now = clk.Now
	db := open(t, t.TempDir(), o)
	defer db.Close()
	end := 0
	grow := func(to int) {
		for i := end; i < to; i++ {
			clk.now = sec(i)
			fill(t, db, i, i+1)
		}
		end = to
	}
	flush := func() {
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	grow(650)
	checkCache(t, db, "appended", end)
	flush() // window 600's first 50 seconds sealed, and read into the cache
	checkCache(t, db, "flushed", end)
	grow(700)
	flush() // and extended
	checkCache(t, db, "flushed again", end)
	grow(3700) // the first hour's minutes sealed
	checkCache(t, db, "minutes rolled up", end)

	if err := db.Prune(analytics.PerSecond, sec(1000)); err != nil { // in window 960's middle
		t.Fatal(err)
	}
	checkCache(t, db, "seconds pruned", end)
	if err := db.Prune(analytics.PerMinute, sec(1830)); err != nil { // in the first minutes' chunk
		t.Fatal(err)
	}
	checkCache(t, db, "minutes pruned", end)
	if err := db.Prune(analytics.PerMinute, sec(3660)); err != nil { // the open chunks' first head records
		t.Fatal(err)
	}
	checkCache(t, db, "open chunks pruned", end)

	before := read(t, db, "syscall.latency", sec(0), sec(end), analytics.PerSecond)
	if err := db.Delete("syscall.latency"); err != nil {
		t.Fatal(err)
	}
	checkCache(t, db, "deleted", end)
	appendSeconds(t, db, "syscall.latency", other, 0, end)
	checkCache(t, db, "made again", end)
	after := read(t, db, "syscall.latency", sec(0), sec(end), analytics.PerSecond)
	if len(before) == 0 || len(after) == 0 || reflect.DeepEqual(before[len(before)-1], after[len(after)-1]) {
		t.Fatal("the dataset made again reads as the one deleted: the test would not see a stale chunk")
	}

	// A sealed chunk whose window reaches past the prune point but whose
	// intervals do not: it goes.
	flush()
	checkCache(t, db, "flushed at the end", end)
	if err := db.Prune(analytics.PerSecond, sec(end+10)); err != nil {
		t.Fatal(err)
	}
	checkCache(t, db, "every second pruned", end)

	// Past the seconds' retention: their chunks go.
	clk.now = sec(end + 8*86400)
	fill(t, db, end+8*86400, end+8*86400+1)
	end += 8*86400 + 1
	checkCache(t, db, "retention", end)
	if got := read(t, db, "syscall.latency", sec(0), sec(3700), analytics.PerSecond); len(got) != 0 {
		t.Fatalf("%d seconds past their retention", len(got))
	}

	st := db.CacheStats()
	if st.Hits == 0 || st.Entries == 0 {
		t.Errorf("the cache was not used: %+v", st)
	}
	if st.Stale != 0 {
		t.Errorf("a writer left %d stale entries (they were not served, but one of the store's writers no longer drops what it changes): %+v", st.Stale, st)
	}
}

// TestCacheChunkRewritten rewrites a chunk the cache holds behind the
// store's back: the entry is not served, because its bytes are not the
// chunk's.
func TestCacheChunkRewritten(t *testing.T) {
	db := open(t, t.TempDir(), testOptions())
	defer db.Close()
	fill(t, db, 0, 300)
	const name = "syscall.latency"
	old := read(t, db, name, sec(0), sec(120), analytics.PerSecond)
	if st := db.CacheStats(); st.Entries == 0 {
		t.Fatalf("nothing cached: %+v", st)
	}
	var ivs []analytics.Second
	for i := range 120 {
		ivs = append(ivs, want(t, other, i))
	}
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketChunks).Put(recKey(name, 0, sec(0).Unix()), db.codec.encodeChunk(sec(0).Unix(), 1, ivs))
	})
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, db, name, sec(0), sec(120), analytics.PerSecond)
	if !reflect.DeepEqual(got, ivs) {
		t.Fatalf("after the chunk was rewritten:\n got %s\nwant %s (before: %s)", brief(got), brief(ivs), brief(old))
	}
	if st := db.CacheStats(); st.Stale != 1 {
		t.Errorf("stale entries %d, want 1", st.Stale)
	}
	checkCache(t, db, "rewritten", 300)
}

// TestCacheDiskCap reads, through the cache and without it, while the
// disk cap deletes the oldest chunks, which the cache holds.
func TestCacheDiskCap(t *testing.T) {
	db := open(t, t.TempDir(), testOptions())
	fill(t, db, 0, 1800)
	full := db.DiskBytes()
	db.Close()
	o := testOptions()
	o.MaxBytes = full / 2
	db = open(t, t.TempDir(), o)
	defer db.Close()
	for end := 300; end <= 1800; end += 300 {
		fill(t, db, end-300, end)
		checkCache(t, db, fmt.Sprintf("capped, %d seconds", end), end)
	}
	if st := db.CacheStats(); st.Stale != 0 || st.Hits == 0 {
		t.Errorf("%+v", st)
	}
}

// TestCacheBound checks the bound on the cache's memory, the in-core
// sizes that count it, and what Delete and Close give back.
func TestCacheBound(t *testing.T) {
	o := testOptions()
	o.CacheBytes = 600 << 10 // a few of latency's chunks (~110 kB each)
	db := open(t, t.TempDir(), o)
	defer db.Close()
	fill(t, db, 0, 1200)
	incore := map[string]int64{}
	for name := range generators {
		incore[name], _ = db.Size(name)
	}
	const name = "syscall.latency"
	for _, n := range []string{"syscall.ops[execname][name]", "cpu.utilization[mode]", name} { // latency last: it stays cached
		checkSeconds(t, db, n, 0, 1200)
		checkRollups(t, db, n, 0, 1200, 20)
	}
	st := db.CacheStats()
	if st.Bytes > st.Max || st.Evicted == 0 || st.Entries == 0 || st.TooLarge != 0 {
		t.Fatalf("%+v", st)
	}
	var sum int64
	for name := range generators {
		in, _ := db.Size(name)
		cached := db.cache.bytesOf(name)
		if in != incore[name]+cached {
			t.Errorf("%s: in core %d, want %d and the cache's %d", name, in, incore[name], cached)
		}
		sum += cached
	}
	if sum != st.Bytes {
		t.Errorf("datasets' cached bytes sum to %d, the cache holds %d", sum, st.Bytes)
	}
	if db.cache.bytesOf(name) == 0 {
		t.Fatalf("%s not cached", name)
	}
	if err := db.Delete(name); err != nil {
		t.Fatal(err)
	}
	if st2 := db.CacheStats(); db.cache.bytesOf(name) != 0 || st2.Bytes >= st.Bytes {
		t.Errorf("%s deleted: %d bytes of it cached; %+v", name, db.cache.bytesOf(name), st2)
	}

	// A chunk over a quarter of the bound is decoded but not kept.
	o.CacheBytes = 64 << 10
	small := open(t, t.TempDir(), o)
	defer small.Close()
	fill(t, small, 0, 300)
	checkSeconds(t, small, "syscall.latency", 0, 300)
	if st := small.CacheStats(); st.TooLarge == 0 || st.Bytes > st.Max {
		t.Errorf("%+v", st)
	}

	// And none at all.
	o.CacheBytes = -1
	none := open(t, t.TempDir(), o)
	defer none.Close()
	fill(t, none, 0, 300)
	checkSeconds(t, none, "syscall.latency", 0, 300)
	if st := none.CacheStats(); st != (CacheStats{}) {
		t.Errorf("no cache: %+v", st)
	}
}

// TestCacheConcurrent reads while a writer appends, flushes (rewriting
// the chunk of the current window) and prunes; run with -race.
func TestCacheConcurrent(t *testing.T) {
	db := open(t, t.TempDir(), testOptions())
	defer db.Close()
	fill(t, db, 0, 600)
	wants := map[string][]analytics.Second{}
	for name, gen := range generators {
		for i := 300; i < 600; i++ {
			wants[name] = append(wants[name], want(t, gen, i))
		}
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 8)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 600; i < 1500; i++ {
			var batch []Sample
			for name, gen := range generators {
				batch = append(batch, Sample{Dataset: name, Second: gen(i)})
			}
			err := db.AppendBatch(batch)
			if err == nil && i%50 == 0 {
				err = db.Flush()
			}
			if err == nil && i == 1000 {
				err = db.Prune(analytics.PerSecond, sec(300))
			}
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-done:
					if n > 0 {
						return
					}
				default:
				}
				for name := range generators {
					got, err := db.Read(name, sec(300), sec(600), analytics.PerSecond)
					if err == nil && len(got) != 300 {
						err = fmt.Errorf("reader %d: %s: %d seconds, want 300", r, name, len(got))
					}
					for i := 0; err == nil && i < len(got); i++ {
						if w := wants[name][i]; !reflect.DeepEqual(got[i], w) {
							err = fmt.Errorf("reader %d: %s second %d:\n got %+v\nwant %+v", r, name, 300+i, got[i], w)
						}
					}
					if err == nil {
						// The current window, flushed or not.
						_, err = db.Read(name, sec(0), sec(2000), analytics.PerSecond)
					}
					if err != nil {
						errs <- err
						return
					}
					scribble(got)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for name := range generators {
		checkSeconds(t, db, name, 300, 1500)
	}
	checkCache(t, db, "after", 1500)
}
