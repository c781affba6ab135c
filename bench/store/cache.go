package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/store"
)

// cacheTimes measures the store's cache of decoded chunks on the recorded
// heat map: a day and an hour of it (the recording's seconds over again)
// are appended to a store, then each of two reads the web UI makes —
// the last hour of seconds (2 chunks) and the last day of minutes (1
// chunk, as the UI reads a day) — is timed, with the process's CPU time,
// three ways in turn: without a cache (Options.CacheBytes -1); cold, the
// store just opened (decoded, and kept); warm, read again (copied out of
// the cache). The open chunks are flushed first, so that every interval
// read is in a sealed chunk: what the cache holds. A live window also
// reads the current window's head records, which are not cached: the
// last read times that, the last hour with its last 30 minutes still open.
func cacheTimes(heat []analytics.Second) error {
	if len(heat) == 0 {
		return nil
	}
	const day = 86400
	end := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	dir, err := os.MkdirTemp("", "bench-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := func(cache int64) *store.Options {
		return &store.Options{NoSync: true, CacheBytes: cache, Now: func() time.Time { return end }}
	}
	db, err := store.Open(dir, opts(0))
	if err != nil {
		return err
	}
	span := heat[len(heat)-1].Time.Sub(heat[0].Time) + time.Second
	first := end.Add(-(day + 3600) * time.Second)
	var batch []store.Sample
	var buckets int64
	appendUntil := func(stop time.Time) error {
		for i := 0; ; i++ {
			s := heat[i%len(heat)]
			s.Time = first.Add(time.Duration(i/len(heat))*span + s.Time.Sub(heat[0].Time))
			if !s.Time.Before(stop) {
				break
			}
			if s.Time.Before(end) && !s.Time.Before(end.Add(-time.Hour)) {
				for _, r := range s.Rows {
					buckets += int64(len(r.Buckets))
				}
			}
			batch = append(batch, store.Sample{Dataset: heatName, Second: s})
			if len(batch) == 3600 {
				if err := db.AppendBatch(batch); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		if len(batch) > 0 {
			if err := db.AppendBatch(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
		return nil
	}
	began := time.Now()
	// Up to 30 minutes before the end, then a live store's last hour
	// (its last 30 minutes in head records), then the rest, flushed.
	if err := appendUntil(end.Add(-30 * time.Minute)); err != nil {
		return err
	}
	first = end.Add(-30 * time.Minute)
	if err := appendUntil(end); err != nil {
		return err
	}
	fmt.Printf("The store's cache of decoded chunks: a day and an hour of the recorded heat map %s appended in %.1f s (the last hour: %d buckets)\n",
		heatName, time.Since(began).Seconds(), buckets)
	hour := query{"the last hour of seconds", end.Add(-time.Hour), end, analytics.PerSecond}
	dayq := query{"the last day of minutes", end.Add(-day * time.Second), end, analytics.PerMinute}
	live, err := timeRead(db, hour, 7)
	if err != nil {
		return err
	}
	liveDay, err := timeRead(db, dayq, 7)
	if err != nil {
		return err
	}
	if err := db.Flush(); err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	for _, q := range []query{hour, dayq} {
		var none, cold, warm []sample
		var n int
		for range 7 {
			for _, c := range []int64{-1, 0} {
				db, err := store.Open(dir, opts(c))
				if err != nil {
					return err
				}
				s, err := timeRead(db, q, 1)
				if err == nil && c == 0 {
					n = s[0].n
					cold = append(cold, s...)
					s, err = timeRead(db, q, 1)
					warm = append(warm, s...)
					if st := db.CacheStats(); err == nil && (st.Hits == 0 || st.TooLarge != 0) {
						err = fmt.Errorf("the cache did not serve the read: %+v", st)
					}
				} else {
					none = append(none, s...)
				}
				if cerr := db.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
			}
		}
		db, err := store.Open(dir, opts(0))
		if err != nil {
			return err
		}
		if _, err := db.Read(heatName, q.from, q.to, q.g); err != nil {
			return err
		}
		incore, _ := db.Size(heatName)
		st := db.CacheStats()
		db.Close()
		fmt.Printf("  read %s, %d intervals (%d entries cached, %.1f MB estimated, in-core size %.1f MB):\n",
			q.what, n, st.Entries, float64(st.Bytes)/1e6, float64(incore)/1e6)
		for _, m := range []struct {
			what string
			s    []sample
		}{{"no cache", none}, {"cold", cold}, {"warm", warm}} {
			fmt.Printf("    %-8s %s\n", m.what, summary(m.s))
		}
	}
	fmt.Printf("  live, before the flush: the last hour of seconds (30 minutes in sealed chunks, 30 in head records) cold %s, warm %s;\n",
		summary(live[:1]), summary(live[1:]))
	fmt.Printf("    the last day of minutes (all in head records) cold %s, warm %s\n", summary(liveDay[:1]), summary(liveDay[1:]))
	fmt.Println("    (7 reads each; no cache, cold and warm in turn; medians, ms)")
	return nil
}

// query is one read.
type query struct {
	what     string
	from, to time.Time
	g        analytics.Granularity
}

// sample is one read's time and CPU time.
type sample struct {
	t, cpu time.Duration
	n      int
}

// timeRead reads q n times, and times each read.
func timeRead(db *store.DB, q query, n int) ([]sample, error) {
	var out []sample
	for range n {
		c0, t0 := cpuTime(), time.Now()
		got, err := db.Read(heatName, q.from, q.to, q.g)
		if err != nil {
			return nil, err
		}
		out = append(out, sample{time.Since(t0), cpuTime() - c0, len(got)})
	}
	return out, nil
}

// summary gives the medians of the times and CPU times.
func summary(s []sample) string {
	t := make([]time.Duration, len(s))
	c := make([]time.Duration, len(s))
	for i, x := range s {
		t[i], c[i] = x.t, x.cpu
	}
	slices.Sort(t)
	slices.Sort(c)
	return fmt.Sprintf("%.1f ms (min %.1f), CPU %.1f ms (min %.1f)", ms(t[len(t)/2]), ms(t[0]), ms(c[len(c)/2]), ms(c[0]))
}
