package store

import (
	"bytes"
	"container/list"
	"slices"
	"sync"
	"unsafe"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// DefaultCacheBytes is the memory the decoded-chunk cache takes at most
// by default (Options.CacheBytes).
const DefaultCacheBytes = 128 << 20

// chunkCache keeps decoded chunks for the reads that ask for them again:
// the web UI asks for the same windows every second (live worksheets)
// and at every zoom or pan, and a heat map's chunk costs milliseconds of
// CPU to decode.
//
// It can never give stale data, by construction rather than by
// invalidation: an entry keeps the chunk's bytes as they were when it was
// decoded, and a lookup is a hit only when the bytes the store holds now
// are the same (bytes.Equal). A chunk's decoding depends only on its
// bytes, its window's start and its tier's step: the window is in the
// key, and a store's steps never change. So a chunk rewritten (a Flush
// extended, Prune trimmed), deleted and written again (retention, the
// cap, a dataset destroyed and made again under its name), or written in
// another format is a miss whatever path wrote it. The writers also drop
// the entries of what they change (drop, dropSeries), but only to give
// the memory back sooner and to keep the sizes right.
//
// The open chunks' head records are kept the same way, one entry each
// (keyed by their interval's start): a live window's last half hour of
// seconds, or day of minutes, is in head records. A second's never
// changes; the current minute's and hour's change every second, and
// are dropped by the append that rewrites them.
//
// Entries are compact copies (one slab of rows and one of buckets per
// chunk), and what a read returns is always another copy: callers may
// change the rows they get (the agent averages gauges in place) without
// changing the cache. Keys are shared, as Read documents.
//
// The bound is on an estimate of the entries' memory (their structures'
// sizes, keys, and the chunk bytes kept to compare); past it the least
// recently used entries go. A chunk larger than a quarter of the bound
// is not kept.
type chunkCache struct {
	max int64

	mu       sync.Mutex
	size     int64
	lru      list.List // of *cacheEntry, the most recently used first
	entries  map[cacheKey]*list.Element
	byName   map[string]int64 // each dataset's entries' bytes
	hits     int64
	misses   int64
	evicted  int64
	tooLarge int64
	stale    int64
}

// cacheKey names a chunk (its window's start) or, with head, a head
// record of an open chunk (its interval's start).
type cacheKey struct {
	name string
	ti   int
	win  int64
	head bool
}

type cacheEntry struct {
	key  cacheKey
	raw  []byte // the chunk's bytes, a copy
	ivs  []analytics.Second
	size int64
}

// CacheStats describe the decoded-chunk cache.
type CacheStats struct {
	Bytes, Max int64 // the entries' estimated memory, and the bound
	Entries    int
	// Hits and Misses count chunks looked up; Evicted, entries dropped
	// for room; TooLarge, chunks decoded but not kept (over a quarter
	// of the bound); Stale, entries found holding other bytes than the
	// chunk's (rewritten by a path that did not drop them: the store's
	// own writers do, so this stays 0).
	Hits, Misses, Evicted, TooLarge, Stale int64
}

func newChunkCache(max int64) *chunkCache {
	if max <= 0 {
		return nil
	}
	return &chunkCache{max: max, entries: map[cacheKey]*list.Element{}, byName: map[string]int64{}}
}

// get returns the chunk's decoded intervals if the entry holds the same
// bytes as raw; the caller must not change them (see clip).
func (c *chunkCache) get(k cacheKey, raw []byte) ([]analytics.Second, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.entries[k]
	if el == nil {
		c.misses++
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !bytes.Equal(e.raw, raw) {
		// The chunk was rewritten by a path that did not drop it.
		c.remove(el)
		c.stale++
		c.misses++
		return nil, false
	}
	c.lru.MoveToFront(el)
	c.hits++
	return e.ivs, true
}

// put keeps a compact copy of a chunk just decoded from raw (which may be
// the engine's memory: it is copied).
func (c *chunkCache) put(k cacheKey, raw []byte, ivs []analytics.Second) {
	e := &cacheEntry{key: k}
	e.size = int64(len(raw)) + int64(unsafe.Sizeof(*e)) + int64(len(k.name)) + 64 // the map's and list's share, roughly
	e.size += decodedSize(ivs)
	if e.size > c.max/4 {
		c.mu.Lock()
		c.tooLarge++
		c.mu.Unlock()
		return
	}
	e.raw = bytes.Clone(raw)
	e.ivs = compact(ivs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.entries[k]; el != nil {
		c.remove(el) // another read decoded it at the same time
	}
	c.entries[k] = c.lru.PushFront(e)
	c.size += e.size
	c.byName[k.name] += e.size
	for c.size > c.max {
		c.remove(c.lru.Back())
		c.evicted++
	}
}

// remove drops an entry (c.mu held).
func (c *chunkCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.key)
	c.size -= e.size
	if c.byName[e.key.name] -= e.size; c.byName[e.key.name] == 0 {
		delete(c.byName, e.key.name)
	}
}

// drop forgets a chunk that is rewritten or deleted.
func (c *chunkCache) drop(k cacheKey) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.entries[k]; el != nil {
		c.remove(el)
	}
}

// dropSeries forgets a dataset's chunks (it is deleted).
func (c *chunkCache) dropSeries(name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, el := range c.entries {
		if k.name == name {
			c.remove(el)
		}
	}
}

// clear forgets everything (the store is closed).
func (c *chunkCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.entries)
	clear(c.byName)
	c.size = 0
}

// bytesOf is the memory of a dataset's entries.
func (c *chunkCache) bytesOf(name string) int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byName[name]
}

func (c *chunkCache) stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Bytes: c.size, Max: c.max, Entries: len(c.entries), Hits: c.hits, Misses: c.misses,
		Evicted: c.evicted, TooLarge: c.tooLarge, Stale: c.stale}
}

var (
	secondSize = int64(unsafe.Sizeof(analytics.Second{}))
	rowSize    = int64(unsafe.Sizeof(analytics.Row{}))
	bucketSize = int64(unsafe.Sizeof(analytics.Bucket{}))
	stringSize = int64(unsafe.Sizeof(""))
)

// decodedSize estimates the memory of decoded intervals as compact keeps
// them: the intervals, rows and buckets, and each key once (a chunk's rows
// of one key share its Key slice).
func decodedSize(ivs []analytics.Second) int64 {
	n := int64(len(ivs)) * secondSize
	seen := map[*string]bool{}
	for _, iv := range ivs {
		n += int64(len(iv.Rows)) * rowSize
		for _, r := range iv.Rows {
			n += int64(len(r.Buckets)) * bucketSize
			if len(r.Key) > 0 && !seen[&r.Key[0]] {
				seen[&r.Key[0]] = true
				n += int64(len(r.Key)) * stringSize
				for _, s := range r.Key {
					n += int64(len(s))
				}
			}
		}
	}
	return n
}

// compact copies intervals into one slab of rows and one of buckets (keys
// shared).
func compact(ivs []analytics.Second) []analytics.Second {
	return clip(nil, ivs, -1<<63, 1<<63-1)
}

// clip appends to out a copy of the intervals of ivs that start in
// [lo, hi), their rows and buckets copied (keys shared), in one slab of
// each.
func clip(out, ivs []analytics.Second, lo, hi int64) []analytics.Second {
	i, j := 0, len(ivs)
	for i < j && ivs[i].Time.Unix() < lo {
		i++
	}
	for j > i && ivs[j-1].Time.Unix() >= hi {
		j--
	}
	ivs = ivs[i:j]
	var nr, nb int
	for _, iv := range ivs {
		nr += len(iv.Rows)
		for _, r := range iv.Rows {
			nb += len(r.Buckets)
		}
	}
	rows := make([]analytics.Row, 0, nr)
	buckets := make([]analytics.Bucket, 0, nb)
	out = slices.Grow(out, len(ivs))
	for _, iv := range ivs {
		r0 := len(rows)
		for _, r := range iv.Rows {
			b0 := len(buckets)
			buckets = append(buckets, r.Buckets...)
			if r.Buckets != nil {
				r.Buckets = buckets[b0:len(buckets):len(buckets)]
			}
			rows = append(rows, r)
		}
		if iv.Rows != nil {
			iv.Rows = rows[r0:len(rows):len(rows)]
		}
		out = append(out, iv)
	}
	return out
}
