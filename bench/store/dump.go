package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/store"
)

// dumpLine is one dataset's second in a dump (record-agent.sh): the
// store's own data, each bucket as [index, min, max, count].
type dumpLine struct {
	Dataset string    `json:"dataset"`
	Time    int64     `json:"time"`
	Samples int       `json:"samples"`
	Rows    []dumpRow `json:"rows,omitempty"`
}

type dumpRow struct {
	Key     []string   `json:"key,omitempty"`
	Value   int64      `json:"value"`
	Buckets [][4]int64 `json:"buckets,omitempty"`
}

// dumpStore writes the per-second data of the store in dir to out,
// gzipped, one line per dataset and second, in time order: of the
// datasets named (all when none are), and of a dataset broken down by a
// key (its dump is large), only keyed seconds around the middle of the
// recording when keyed > 0.
func dumpStore(dir, out string, datasets []string, keyed int) (err error) {
	if out == "" {
		return errors.New("-dump needs -o FILE")
	}
	db, err := store.Open(dir, &store.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer db.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	z, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(z)
	var n int
	if len(datasets) == 0 {
		datasets = db.Datasets()
	}
	all := map[string][]analytics.Second{}
	var first, last time.Time
	for _, name := range datasets {
		secs, err := db.Read(name, time.Unix(0, 0), db.Last(name).Add(time.Second), analytics.PerSecond)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(secs) == 0 {
			return fmt.Errorf("%s: no data", name)
		}
		all[name] = secs
		if first.IsZero() || secs[0].Time.Before(first) {
			first = secs[0].Time
		}
		if t := secs[len(secs)-1].Time; t.After(last) {
			last = t
		}
	}
	mid := first.Add(last.Sub(first) / 2)
	for _, name := range datasets {
		secs := all[name]
		if keyed > 0 && strings.Contains(name, "[") && !strings.Contains(name, "=") {
			from, to := mid.Add(-time.Duration(keyed/2)*time.Second), mid.Add(time.Duration(keyed-keyed/2)*time.Second)
			secs = slices.DeleteFunc(secs, func(s analytics.Second) bool { return s.Time.Before(from) || !s.Time.Before(to) })
		}
		for _, s := range secs {
			l := dumpLine{Dataset: name, Time: s.Time.Unix(), Samples: s.Samples}
			for _, r := range s.Rows {
				dr := dumpRow{Key: r.Key, Value: r.Value}
				for _, b := range r.Buckets {
					dr.Buckets = append(dr.Buckets, [4]int64{int64(b.Index), b.Min, int64(b.Max), b.Count})
				}
				l.Rows = append(l.Rows, dr)
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
			n++
		}
	}
	if c := db.Corrupt(); len(c) > 0 {
		return fmt.Errorf("corrupt records in %s: %v", dir, c)
	}
	if err := z.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d dataset-seconds of %d datasets\n", out, n, len(datasets))
	return nil
}

// undump turns a dump back into seconds.
func undump(lines []dumpLine) recording {
	rec := recording{}
	for _, l := range lines {
		s := analytics.Second{Time: time.Unix(l.Time, 0).UTC(), Samples: l.Samples}
		for _, dr := range l.Rows {
			r := analytics.Row{Key: dr.Key, Value: dr.Value}
			for _, b := range dr.Buckets {
				r.Buckets = append(r.Buckets, analytics.Bucket{Index: int32(b[0]), Min: b[1], Max: analytics.Bound(analytics.LegacyMax(b[1], b[2])), Count: b[3]})
			}
			s.Rows = append(s.Rows, r)
		}
		rec[l.Dataset] = append(rec[l.Dataset], s)
	}
	return rec
}
