package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sonde-trace/sonde/internal/store"
)

// cacheCollector serves the store's cache of decoded chunks on /metrics,
// for sizing --read-cache: how full it is, and how often reads find what
// they ask for in it.
type cacheCollector struct{ db *store.DB }

var (
	descCacheBytes   = prometheus.NewDesc("sonde_store_cache_bytes", "Estimated memory of the decoded chunks the store's read cache holds.", nil, nil)
	descCacheLimit   = prometheus.NewDesc("sonde_store_cache_limit_bytes", "The read cache's bound (--read-cache).", nil, nil)
	descCacheEntries = prometheus.NewDesc("sonde_store_cache_entries", "Chunks and head records the read cache holds.", nil, nil)
	descCacheHits    = prometheus.NewDesc("sonde_store_cache_hits_total", "Chunks and head records reads found decoded in the cache.", nil, nil)
	descCacheMisses  = prometheus.NewDesc("sonde_store_cache_misses_total", "Chunks and head records reads had to decode.", nil, nil)
	descCacheEvicted = prometheus.NewDesc("sonde_store_cache_evictions_total", "Entries the read cache dropped to stay within its bound.", nil, nil)
)

func (c cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCacheBytes, descCacheLimit, descCacheEntries, descCacheHits, descCacheMisses, descCacheEvicted} {
		ch <- d
	}
}

func (c cacheCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.db.CacheStats()
	ch <- prometheus.MustNewConstMetric(descCacheBytes, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(descCacheLimit, prometheus.GaugeValue, float64(st.Max))
	ch <- prometheus.MustNewConstMetric(descCacheEntries, prometheus.GaugeValue, float64(st.Entries))
	ch <- prometheus.MustNewConstMetric(descCacheHits, prometheus.CounterValue, float64(st.Hits))
	ch <- prometheus.MustNewConstMetric(descCacheMisses, prometheus.CounterValue, float64(st.Misses))
	ch <- prometheus.MustNewConstMetric(descCacheEvicted, prometheus.CounterValue, float64(st.Evicted))
}
