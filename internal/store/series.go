package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// The engine's buckets (docs/format/store.md).
var (
	bucketInfo   = []byte("info")   // "spans": the chunk windows of each tier
	bucketLast   = []byte("last")   // dataset → its last second
	bucketHeads  = []byte("heads")  // record key → head record
	bucketChunks = []byte("chunks") // record key → chunk
	bucketMeta   = []byte("meta")   // PutMeta's documents
)

// tier is one granularity: intervals of step seconds, kept in chunks of
// span seconds (a multiple of the next tier's step).
type tier struct {
	g    analytics.Granularity
	id   byte
	step int64
	span int64
}

// defaultSpans: half an hour of seconds, a day of minutes, a week of hours.
var defaultSpans = [3]int64{1800, 86400, 7 * 86400}

var tierTemplate = [3]tier{
	{g: analytics.PerSecond, id: 's', step: 1},
	{g: analytics.PerMinute, id: 'm', step: 60},
	{g: analytics.PerHour, id: 'h', step: 3600},
}

// series is a dataset's state in memory.
type series struct {
	name   string
	last   int64 // its last second
	open   [3]openChunk
	ondisk [3]int64 // each tier's
}

// openChunk is a tier's current window: its head records, as stored.
type openChunk struct {
	window  int64
	times   []int64
	heads   [][]byte
	bytes   int64             // keys and values of the head records
	pending *analytics.Second // the last interval, decoded (minutes, hours)
}

func (db *DB) seriesFor(name string) *series {
	s := db.series[name]
	if s == nil {
		s = &series{name: name, last: -1 << 63}
		db.series[name] = s
	}
	return s
}

// Record keys: the dataset's name, a NUL, the tier's id, and the
// interval's (or window's) start as a big-endian uint64 with its sign bit
// flipped, so that keys sort by dataset, tier and time.
func seriesPrefix(name string) []byte { return append([]byte(name), 0) }

func tierPrefix(name string, ti int) []byte {
	return append(seriesPrefix(name), tierTemplate[ti].id)
}

func recKey(name string, ti int, t int64) []byte {
	return binary.BigEndian.AppendUint64(tierPrefix(name, ti), uint64(t)^(1<<63))
}

func parseKey(k []byte) (name string, ti int, t int64, ok bool) {
	i := bytes.IndexByte(k, 0)
	if i < 0 || len(k) != i+10 {
		return "", 0, 0, false
	}
	ti = bytes.IndexByte([]byte("smh"), k[i+1])
	if ti < 0 {
		return "", 0, 0, false
	}
	return string(k[:i]), ti, int64(binary.BigEndian.Uint64(k[i+2:]) ^ (1 << 63)), true
}

func floorTo(t, step int64) int64 {
	q := t / step
	if t%step != 0 && t < 0 {
		q--
	}
	return q * step
}

// setup creates the buckets, and fixes the chunk windows of a new store
// (those of an existing one are read back).
func (db *DB) setup() error {
	return db.bolt.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketInfo, bucketLast, bucketHeads, bucketChunks, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		info := tx.Bucket(bucketInfo)
		spans := defaultSpans
		if db.opts.spans != [3]int64{} {
			spans = db.opts.spans
		}
		if v := info.Get([]byte("spans")); v != nil {
			r := &reader{b: v}
			for i := range spans {
				spans[i] = r.varint()
			}
			if r.err != nil {
				return fmt.Errorf("bad chunk windows record: %w", r.err)
			}
		} else {
			var v []byte
			for _, s := range spans {
				v = binary.AppendVarint(v, s)
			}
			if err := info.Put([]byte("spans"), v); err != nil {
				return err
			}
		}
		for i := range db.tiers {
			db.tiers[i] = tierTemplate[i]
			db.tiers[i].span = spans[i]
			if spans[i] <= 0 || spans[i]%tierTemplate[min(i+1, 2)].step != 0 {
				return fmt.Errorf("bad chunk window %d for %s", spans[i], db.tiers[i].g)
			}
		}
		return nil
	})
}

// load reads the in-memory state from disk: every dataset's last second,
// its open chunks and its size on disk.
func (db *DB) load() error {
	db.series = map[string]*series{}
	return db.bolt.View(func(tx *bolt.Tx) error {
		err := tx.Bucket(bucketLast).ForEach(func(k, v []byte) error {
			if len(v) == 8 {
				db.seriesFor(string(k)).last = int64(binary.BigEndian.Uint64(v))
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Bucket(bucketHeads).ForEach(func(k, v []byte) error {
			name, ti, t, ok := parseKey(k)
			if !ok {
				return nil
			}
			s := db.seriesFor(name)
			s.ondisk[ti] += int64(len(k) + len(v))
			if _, _, err := decodeHead(v); err != nil {
				db.reportCorrupt(name, ti, "head", t)
				return nil
			}
			oc := &s.open[ti]
			oc.window = floorTo(t, db.tiers[ti].span)
			oc.times = append(oc.times, t)
			oc.heads = append(oc.heads, bytes.Clone(v))
			oc.bytes += int64(len(k) + len(v))
			return nil
		})
		if err != nil {
			return err
		}
		for _, s := range db.series {
			for ti := 1; ti < 3; ti++ {
				s.open[ti].pending = s.open[ti].lastInterval()
			}
		}
		return tx.Bucket(bucketChunks).ForEach(func(k, v []byte) error {
			if name, ti, _, ok := parseKey(k); ok {
				db.seriesFor(name).ondisk[ti] += int64(len(k) + len(v))
			}
			return nil
		})
	})
}

func (oc *openChunk) lastInterval() *analytics.Second {
	n := len(oc.times)
	if n == 0 {
		return nil
	}
	samples, rows, err := decodeHead(oc.heads[n-1])
	if err != nil {
		return nil
	}
	return &analytics.Second{Time: time.Unix(oc.times[n-1], 0).UTC(), Samples: samples, Rows: rows}
}

// appendTx adds second t to every tier of s: a new second, and the sum of
// the current minute and hour.
func (db *DB) appendTx(tx *bolt.Tx, s *series, t int64, rows []analytics.Row) error {
	heads := tx.Bucket(bucketHeads)
	for ti, tr := range db.tiers {
		oc := &s.open[ti]
		it := floorTo(t, tr.step)
		win := floorTo(it, tr.span)
		if len(oc.times) > 0 && oc.window != win {
			if err := db.closeChunk(tx, s, ti, false); err != nil {
				return err
			}
		}
		oc.window = win
		samples, sum := 1, rows
		n := len(oc.times)
		extend := n > 0 && oc.times[n-1] == it
		if extend && oc.pending != nil {
			samples, sum = oc.pending.Samples+1, merge(oc.pending.Rows, rows)
		}
		k := recKey(s.name, ti, it)
		v := encodeHead(samples, sum)
		if err := heads.Put(k, v); err != nil {
			return err
		}
		size := int64(len(k) + len(v))
		if extend {
			size -= int64(len(k) + len(oc.heads[n-1]))
			db.cache.drop(cacheKey{name: s.name, ti: ti, win: it, head: true})
			oc.heads[n-1] = v
		} else {
			oc.times = append(oc.times, it)
			oc.heads = append(oc.heads, v)
		}
		oc.bytes += size
		s.ondisk[ti] += size
		if ti > 0 {
			oc.pending = &analytics.Second{Time: time.Unix(it, 0).UTC(), Samples: samples, Rows: sum}
		}
	}
	s.last = t
	return tx.Bucket(bucketLast).Put([]byte(s.name), binary.BigEndian.AppendUint64(nil, uint64(t)))
}

// closeChunk encodes a tier's open chunk into one chunk and deletes its
// head records; with keepLast, its last interval stays open.
func (db *DB) closeChunk(tx *bolt.Tx, s *series, ti int, keepLast bool) error {
	oc := &s.open[ti]
	n := len(oc.times)
	if keepLast {
		n--
	}
	if n <= 0 {
		return nil
	}
	ivs := db.decodeHeads(s.name, ti, oc, -1<<63, oc.times[n-1]+1)
	// A window flushed before (Flush) is extended.
	if old := tx.Bucket(bucketChunks).Get(recKey(s.name, ti, oc.window)); old != nil && len(ivs) > 0 {
		prev, err := db.codec.decodeChunk(oc.window, db.tiers[ti].step, old)
		if err != nil {
			db.reportCorrupt(s.name, ti, "chunk", oc.window)
		}
		ivs = append(prev, ivs...)
	}
	if len(ivs) > 0 {
		if err := db.putChunk(tx, s, ti, oc.window, ivs); err != nil {
			return err
		}
	}
	for _, t := range oc.times[:n] {
		db.cache.drop(cacheKey{name: s.name, ti: ti, win: t, head: true})
	}
	if !keepLast {
		if err := deletePrefix(tx.Bucket(bucketHeads), tierPrefix(s.name, ti)); err != nil {
			return err
		}
		s.ondisk[ti] -= oc.bytes
		*oc = openChunk{}
		return nil
	}
	heads := tx.Bucket(bucketHeads)
	for i := 0; i < n; i++ {
		k := recKey(s.name, ti, oc.times[i])
		if err := heads.Delete(k); err != nil {
			return err
		}
		size := int64(len(k) + len(oc.heads[i]))
		oc.bytes -= size
		s.ondisk[ti] -= size
	}
	oc.times, oc.heads = oc.times[n:], oc.heads[n:]
	return nil
}

// putChunk writes a window's chunk, in place of any before it.
func (db *DB) putChunk(tx *bolt.Tx, s *series, ti int, win int64, ivs []analytics.Second) error {
	chunks := tx.Bucket(bucketChunks)
	k := recKey(s.name, ti, win)
	if old := chunks.Get(k); old != nil {
		s.ondisk[ti] -= int64(len(k) + len(old))
	}
	v := db.codec.encodeChunk(win, db.tiers[ti].step, ivs)
	db.cache.drop(cacheKey{name: s.name, ti: ti, win: win})
	s.ondisk[ti] += int64(len(k) + len(v))
	return chunks.Put(k, v)
}

// decodeHeads decodes the open chunk's intervals in [lo, hi); a corrupt
// one is reported and skipped.
func (db *DB) decodeHeads(name string, ti int, oc *openChunk, lo, hi int64) []analytics.Second {
	var out []analytics.Second
	for i, t := range oc.times {
		if t < lo || t >= hi {
			continue
		}
		samples, rows, err := decodeHead(oc.heads[i])
		if err != nil {
			db.reportCorrupt(name, ti, "head", t)
			continue
		}
		out = append(out, analytics.Second{Time: time.Unix(t, 0).UTC(), Samples: samples, Rows: rows})
	}
	return out
}

func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// readChunks decodes the closed chunks of a tier whose intervals may
// start in [lo, hi), and returns those that do. A chunk the cache holds
// is taken from it (and copied); the others are decoded on up to GOMAXPROCS
// goroutines at once (a chunk's decoding is independent of the others';
// a heat map's is CPU-bound), within the transaction that holds their
// bytes, and given to the cache. What comes back, and what is reported
// corrupt, is in the chunks' order.
func (db *DB) readChunks(tx *bolt.Tx, s *series, ti int, lo, hi int64, cache *chunkCache) []analytics.Second {
	tr := db.tiers[ti]
	prefix := tierPrefix(s.name, ti)
	type found struct {
		win int64
		v   []byte
		ivs []analytics.Second
		hit bool
		err error
	}
	var fs []found
	var todo []int
	c := tx.Bucket(bucketChunks).Cursor()
	for k, v := c.Seek(recKey(s.name, ti, floorTo(lo, tr.span))); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		_, _, win, ok := parseKey(k)
		if !ok || win >= hi {
			break
		}
		f := found{win: win, v: v}
		if cache != nil {
			f.ivs, f.hit = cache.get(cacheKey{name: s.name, ti: ti, win: win}, v)
		}
		if !f.hit {
			todo = append(todo, len(fs))
		}
		fs = append(fs, f)
	}
	decode := func(f *found) {
		f.ivs, f.err = db.codec.decodeChunk(f.win, tr.step, f.v)
		if f.err == nil && cache != nil {
			cache.put(cacheKey{name: s.name, ti: ti, win: f.win}, f.v, f.ivs)
		}
	}
	if workers := min(runtime.GOMAXPROCS(0), len(todo)); workers > 1 {
		var wg sync.WaitGroup
		next := make(chan int)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					decode(&fs[i])
				}
			}()
		}
		for _, i := range todo {
			next <- i
		}
		close(next)
		wg.Wait()
	} else {
		for _, i := range todo {
			decode(&fs[i])
		}
	}
	var out []analytics.Second
	for _, f := range fs {
		if f.err != nil {
			db.reportCorrupt(s.name, ti, "chunk", f.win)
			continue
		}
		if f.hit {
			// The cache's own: the caller gets a copy.
			out = clip(out, f.ivs, lo, hi)
			continue
		}
		for _, iv := range f.ivs {
			if t := iv.Time.Unix(); t >= lo && t < hi {
				out = append(out, iv)
			}
		}
	}
	return out
}

// readOpen decodes the open chunk's intervals in [lo, hi), through the
// cache when there is one: a head record is immutable but for the current
// minute's and hour's, which the cache sees rewritten.
func (db *DB) readOpen(s *series, ti int, lo, hi int64, cache *chunkCache) []analytics.Second {
	oc := &s.open[ti]
	if cache == nil {
		return db.decodeHeads(s.name, ti, oc, lo, hi)
	}
	var out []analytics.Second
	for i, t := range oc.times {
		if t < lo || t >= hi {
			continue
		}
		k := cacheKey{name: s.name, ti: ti, win: t, head: true}
		if ivs, ok := cache.get(k, oc.heads[i]); ok {
			out = clip(out, ivs, lo, hi)
			continue
		}
		samples, rows, err := decodeHead(oc.heads[i])
		if err != nil {
			db.reportCorrupt(s.name, ti, "head", t)
			continue
		}
		iv := analytics.Second{Time: time.Unix(t, 0).UTC(), Samples: samples, Rows: rows}
		cache.put(k, oc.heads[i], []analytics.Second{iv})
		out = append(out, iv)
	}
	return out
}

// pruneTier drops a tier's intervals that start before cut: whole chunks
// whose window ends by then and, when exact, the early intervals of the
// chunk and open chunk that straddle it.
func (db *DB) pruneTier(tx *bolt.Tx, s *series, ti int, cut int64, exact bool) error {
	tr := db.tiers[ti]
	chunks := tx.Bucket(bucketChunks)
	prefix := tierPrefix(s.name, ti)
	type old struct {
		k   []byte
		win int64
	}
	var olds []old
	c := chunks.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		_, _, win, ok := parseKey(k)
		if !ok || win >= cut {
			break
		}
		olds = append(olds, old{bytes.Clone(k), win})
	}
	for _, o := range olds {
		if o.win+tr.span > cut && !exact {
			continue
		}
		if o.win+tr.span > cut {
			if err := db.trimChunk(tx, s, ti, o.win, cut); err != nil {
				return err
			}
			continue
		}
		s.ondisk[ti] -= int64(len(o.k) + len(chunks.Get(o.k)))
		db.cache.drop(cacheKey{name: s.name, ti: ti, win: o.win})
		if err := chunks.Delete(o.k); err != nil {
			return err
		}
	}
	oc := &s.open[ti]
	if len(oc.times) == 0 || (!exact && oc.window+tr.span > cut) {
		return nil
	}
	return db.trimOpen(tx, s, ti, cut)
}

// trimChunk rewrites a chunk without its intervals before cut. A corrupt
// chunk is left as it is.
func (db *DB) trimChunk(tx *bolt.Tx, s *series, ti int, win int64, cut int64) error {
	k := recKey(s.name, ti, win)
	v := tx.Bucket(bucketChunks).Get(k)
	ivs, err := db.codec.decodeChunk(win, db.tiers[ti].step, v)
	if err != nil {
		db.reportCorrupt(s.name, ti, "chunk", win)
		return nil
	}
	i := 0
	for i < len(ivs) && ivs[i].Time.Unix() < cut {
		i++
	}
	if i == len(ivs) {
		s.ondisk[ti] -= int64(len(k) + len(v))
		db.cache.drop(cacheKey{name: s.name, ti: ti, win: win})
		return tx.Bucket(bucketChunks).Delete(k)
	}
	return db.putChunk(tx, s, ti, win, ivs[i:])
}

// trimOpen drops the open chunk's head records before cut.
func (db *DB) trimOpen(tx *bolt.Tx, s *series, ti int, cut int64) error {
	oc := &s.open[ti]
	heads := tx.Bucket(bucketHeads)
	i := 0
	for i < len(oc.times) && oc.times[i] < cut {
		k := recKey(s.name, ti, oc.times[i])
		if err := heads.Delete(k); err != nil {
			return err
		}
		db.cache.drop(cacheKey{name: s.name, ti: ti, win: oc.times[i], head: true})
		size := int64(len(k) + len(oc.heads[i]))
		oc.bytes -= size
		s.ondisk[ti] -= size
		i++
	}
	if i == len(oc.times) {
		// Corrupt head records (not in oc) go as well.
		if err := deletePrefix(heads, tierPrefix(s.name, ti)); err != nil {
			return err
		}
		*oc = openChunk{}
		return nil
	}
	oc.times, oc.heads = oc.times[i:], oc.heads[i:]
	return nil
}

// retain applies each tier's retention, chunk by chunk: a chunk goes when
// the whole of its window is older than the tier keeps.
func (db *DB) retain(tx *bolt.Tx, now int64) error {
	for _, s := range db.series {
		for ti := range db.tiers {
			if err := db.pruneTier(tx, s, ti, now-db.keep[ti], false); err != nil {
				return err
			}
		}
	}
	return nil
}

// enforceCap deletes the oldest chunks, finest tier first, until the
// store is under its cap (open chunks are never dropped).
func (db *DB) enforceCap(tx *bolt.Tx) error {
	if db.opts.MaxBytes <= 0 {
		return nil
	}
	chunks := tx.Bucket(bucketChunks)
	for db.total() > db.opts.MaxBytes {
		s, ti, k := db.oldestChunk(tx)
		if k == nil {
			return nil
		}
		s.ondisk[ti] -= int64(len(k) + len(chunks.Get(k)))
		_, _, win, _ := parseKey(k)
		db.cache.drop(cacheKey{name: s.name, ti: ti, win: win})
		if err := chunks.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// oldestChunk finds the oldest chunk of the finest tier that has one.
func (db *DB) oldestChunk(tx *bolt.Tx) (*series, int, []byte) {
	c := tx.Bucket(bucketChunks).Cursor()
	for ti := range db.tiers {
		var best *series
		var bestKey []byte
		var bestWin int64
		for _, s := range db.series {
			prefix := tierPrefix(s.name, ti)
			k, _ := c.Seek(prefix)
			if k == nil || !bytes.HasPrefix(k, prefix) {
				continue
			}
			_, _, win, _ := parseKey(k)
			if best == nil || win < bestWin {
				best, bestKey, bestWin = s, bytes.Clone(k), win
			}
		}
		if best != nil {
			return best, ti, bestKey
		}
	}
	return nil, 0, nil
}
