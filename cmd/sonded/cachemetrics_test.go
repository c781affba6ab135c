package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/store"
)

// The read cache's counts on /metrics are the store's: a second read of
// a sealed chunk is a hit.
func TestCacheMetrics(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	db, err := store.Open(t.TempDir(), &store.Options{NoSync: true, CacheBytes: 1 << 20, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 3 {
		s := analytics.Second{Time: t0.Add(time.Duration(i) * time.Second), Samples: 1, Rows: []analytics.Row{{Value: int64(i + 1)}}}
		if err := db.Append("io.ops", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got, err := db.Read("io.ops", t0, t0.Add(time.Hour), analytics.PerSecond); err != nil || len(got) != 3 {
			t.Fatalf("read: %v %v", got, err)
		}
	}
	st := db.CacheStats()
	if st.Hits != 1 || st.Misses != 1 || st.Entries != 1 || st.Bytes == 0 {
		t.Fatalf("%+v", st)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(cacheCollector{db})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		got[mf.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	want := map[string]float64{"sonde_store_cache_bytes": float64(st.Bytes), "sonde_store_cache_limit_bytes": 1 << 20,
		"sonde_store_cache_entries": 1, "sonde_store_cache_hits_total": 1, "sonde_store_cache_misses_total": 1,
		"sonde_store_cache_evictions_total": 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metrics %v, want %v", got, want)
	}
}
