// Package store is sonded's embedded time-series store: every dataset's
// per-second values, rolled up into minutes and hours, compressed in
// chunks, crash-safe, with retention per tier and a total disk cap. It
// knows nothing of BPF or D: it stores analytics.Seconds by dataset name.
//
// The index and durability are bbolt's (one file, store.db, in the
// store's directory); the values are the store's own columnar chunks,
// checksummed. docs/format/store.md documents the format and why bbolt.
//
// Each tier (seconds, minutes, hours) keeps a dataset's intervals in
// chunks, one per aligned window (by default 30 minutes of seconds, a day
// of minutes, a week of hours). The open chunk, the current window's, is
// kept both in memory and on disk as one head record per interval,
// written by the same transaction as the second that changed it; when a
// second falls in a later window, the open chunk is encoded into one
// compressed chunk and its head records deleted, in one transaction. A
// minute or hour is summed as its seconds arrive, so every tier is exact
// at every moment.
//
// A DB is safe for concurrent use.
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Options configure a store. Zero values take the defaults.
type Options struct {
	// Retention of each tier: defaults 7 days of seconds, 14 days of
	// minutes, 90 days of hours; a coarser tier never keeps less than a
	// finer one.
	//lint:ignore ST1011 the tiers' names: retention of seconds, minutes, hours
	Seconds, Minutes, Hours time.Duration
	// MaxBytes caps the store on disk (0: no cap); past it the oldest
	// data of the finest tier goes first.
	MaxBytes int64
	// Now is the clock (tests inject one); nil is time.Now.
	Now func() time.Time
	// NoSync skips the fsync of each commit: faster, but a crash of the
	// machine (not only of the process) can lose recent seconds or,
	// worse, the file. For tests and benchmarks only.
	NoSync bool
	// ChunkVersion is the chunk format written: 0 is the newest (3).
	// The older ones (1 and 2) are there so that benchmarks can compare
	// the formats and tests can check that old chunks still read; every
	// version reads whatever this is.
	ChunkVersion int
	// CacheBytes bounds the memory of the cache of decoded chunks that
	// reads keep (cache.go): 0 is DefaultCacheBytes, negative none.
	CacheBytes int64

	// spans overrides the chunk windows (seconds per chunk) of a new
	// store, for tests.
	spans [3]int64
}

// defaultKeep is each tier's retention by default.
var defaultKeep = [3]time.Duration{7 * 24 * time.Hour, 14 * 24 * time.Hour, 90 * 24 * time.Hour}

// Sample is one dataset's second, for AppendBatch.
type Sample struct {
	Dataset string
	Second  analytics.Second
}

// DB is an open store.
type DB struct {
	bolt  *bolt.DB
	codec *codec
	cache *chunkCache // nil when there is none
	opts  Options
	tiers [3]tier
	keep  [3]int64 // retention of each tier, seconds

	mu         sync.RWMutex // guards what follows; writers hold it exclusively
	series     map[string]*series
	nextRetain int64 // when retention runs next (unix seconds)
	closed     bool

	cmu     sync.Mutex // guards corrupt (readers add to it)
	corrupt []string
}

// Open opens (or creates) the store in dir.
func Open(dir string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	o := *opts
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ChunkVersion < 0 || o.ChunkVersion > chunkVersion {
		return nil, fmt.Errorf("store: chunk version %d: want 1 to %d", o.ChunkVersion, chunkVersion)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	bdb, err := bolt.Open(filepath.Join(dir, "store.db"), 0o600, &bolt.Options{
		Timeout:        time.Second,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		NoSync:         o.NoSync,
	})
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	c, err := newCodec()
	if err != nil {
		bdb.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	if o.ChunkVersion != 0 {
		c.version = byte(o.ChunkVersion)
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	db := &DB{bolt: bdb, codec: c, cache: newChunkCache(o.CacheBytes), opts: o, series: map[string]*series{}}
	db.keep = retentions(o)
	err = db.setup()
	if err == nil {
		err = db.load()
	}
	if err != nil {
		db.codec.close()
		bdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	return db, nil
}

// retentions applies the defaults and makes a coarser tier keep at least
// as long as a finer one.
func retentions(o Options) [3]int64 {
	keep := [3]time.Duration{o.Seconds, o.Minutes, o.Hours}
	var out [3]int64
	for i := range keep {
		if keep[i] <= 0 {
			keep[i] = defaultKeep[i]
		}
		if i > 0 && keep[i] < keep[i-1] {
			keep[i] = keep[i-1]
		}
		out[i] = int64(keep[i] / time.Second)
	}
	return out
}

// Close closes the store. The open chunks stay on disk as head records,
// and are taken up again by the next Open.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	db.cache.clear()
	db.codec.close()
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

var errClosed = errors.New("store: closed")

// Append records one second of a dataset (s.Time truncated to the
// second; s.Samples 1). It is durable when Append returns: a kill -9
// afterwards loses nothing of it. Appending a second at or before the
// last one appended for the dataset is an error.
//
// Each Append is one commit (two fsyncs); an agent with many datasets
// appends each second's values with one AppendBatch instead.
func (db *DB) Append(dataset string, s analytics.Second) error {
	return db.AppendBatch([]Sample{{Dataset: dataset, Second: s}})
}

// AppendBatch appends seconds of several datasets in one commit:
// durable, all or nothing, when it returns. A dataset may appear more
// than once, its seconds in time order (an import or a backfill).
func (db *DB) AppendBatch(batch []Sample) error {
	type prepared struct {
		ser  string
		t    int64
		rows []analytics.Row
	}
	todo := make([]prepared, 0, len(batch))
	seen := map[string]int64{}
	for _, b := range batch {
		if err := checkName(b.Dataset); err != nil {
			return err
		}
		if t, ok := seen[b.Dataset]; ok && b.Second.Time.Unix() <= t {
			return fmt.Errorf("store: %s: seconds out of order in a batch", b.Dataset)
		}
		seen[b.Dataset] = b.Second.Time.Unix()
		rows, err := normalize(b.Second.Rows)
		if err != nil {
			return fmt.Errorf("store: %s: %w", b.Dataset, err)
		}
		todo = append(todo, prepared{b.Dataset, b.Second.Time.Unix(), rows})
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return errClosed
	}
	for _, p := range todo {
		if s := db.series[p.ser]; s != nil && p.t <= s.last {
			return fmt.Errorf("store: %s: second %s is not after the last one, %s", p.ser,
				time.Unix(p.t, 0).UTC().Format(time.RFC3339), time.Unix(s.last, 0).UTC().Format(time.RFC3339))
		}
	}
	return db.update(func(tx *bolt.Tx) error {
		for _, p := range todo {
			if err := db.appendTx(tx, db.seriesFor(p.ser), p.t, p.rows); err != nil {
				return err
			}
		}
		return db.housekeep(tx)
	})
}

// checkName refuses names the key layout cannot hold.
func checkName(name string) error {
	if name == "" || strings.IndexByte(name, 0) >= 0 {
		return fmt.Errorf("store: bad dataset name %q", name)
	}
	return nil
}

// update runs fn in a write transaction. fn changes the in-memory state as
// it writes; when the transaction fails, that state is read again from
// disk so that it matches what was committed.
func (db *DB) update(fn func(tx *bolt.Tx) error) error {
	err := db.bolt.Update(fn)
	if err == nil {
		return nil
	}
	if lerr := db.load(); lerr != nil {
		return fmt.Errorf("store: %w (and reloading: %v)", err, lerr)
	}
	return fmt.Errorf("store: %w", err)
}

// housekeep applies retention (once a minute) and the disk cap.
func (db *DB) housekeep(tx *bolt.Tx) error {
	now := db.opts.Now().Unix()
	if now >= db.nextRetain {
		if err := db.retain(tx, now); err != nil {
			return err
		}
		db.nextRetain = now + 60
	}
	return db.enforceCap(tx)
}

// Read returns the dataset's intervals of granularity g that start in
// [from, to), in time order; intervals without data are absent.
// Distributions' buckets are summed bucket by bucket, counters summed, and
// Samples says how many seconds each interval holds. Rows are sorted by
// key, a distribution's buckets by index; rows of one key share its Key
// slice, which the caller must not modify. The current minute and hour
// are included as they stand. Corrupt chunks are skipped (see Corrupt).
func (db *DB) Read(dataset string, from, to time.Time, g analytics.Granularity) ([]analytics.Second, error) {
	return db.read(dataset, from, to, g, db.cache)
}

// read is Read through cache (none when nil).
func (db *DB) read(dataset string, from, to time.Time, g analytics.Granularity, cache *chunkCache) ([]analytics.Second, error) {
	ti, err := tierIndex(g)
	if err != nil {
		return nil, err
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return nil, errClosed
	}
	s := db.series[dataset]
	if s == nil {
		return nil, nil
	}
	lo, hi := from.Unix(), to.Unix()
	if from.After(time.Unix(lo, 0)) {
		lo++ // an interval starts on a whole second
	}
	if to.After(time.Unix(hi, 0)) {
		hi++
	}
	var out []analytics.Second
	err = db.bolt.View(func(tx *bolt.Tx) error {
		out = db.readChunks(tx, s, ti, lo, hi, cache)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return append(out, db.readOpen(s, ti, lo, hi, cache)...), nil
}

func tierIndex(g analytics.Granularity) (int, error) {
	switch g {
	case analytics.PerSecond, "":
		return 0, nil
	case analytics.PerMinute:
		return 1, nil
	case analytics.PerHour:
		return 2, nil
	}
	return 0, fmt.Errorf("store: unknown granularity %q", g)
}

// Last is the time of the dataset's last second, zero when none.
func (db *DB) Last(dataset string) time.Time {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if s := db.series[dataset]; s != nil {
		return time.Unix(s.last, 0).UTC()
	}
	return time.Time{}
}

// Datasets lists the datasets the store holds, sorted.
func (db *DB) Datasets() []string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	names := make([]string, 0, len(db.series))
	for n := range db.series {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Delete removes a dataset's data.
func (db *DB) Delete(dataset string) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return errClosed
	}
	s := db.series[dataset]
	if s == nil {
		return nil
	}
	return db.update(func(tx *bolt.Tx) error {
		if err := deletePrefix(tx.Bucket(bucketChunks), seriesPrefix(dataset)); err != nil {
			return err
		}
		if err := deletePrefix(tx.Bucket(bucketHeads), seriesPrefix(dataset)); err != nil {
			return err
		}
		delete(db.series, dataset)
		db.cache.dropSeries(dataset)
		return tx.Bucket(bucketLast).Delete([]byte(dataset))
	})
}

// Prune discards the tier's data older than before (the API's "discard
// per-second data older than N"): every interval that starts before it.
// The finer tiers are pruned as well, so that a coarser tier never keeps
// less than a finer one.
func (db *DB) Prune(g analytics.Granularity, before time.Time) error {
	ti, err := tierIndex(g)
	if err != nil {
		return err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return errClosed
	}
	cut := before.Unix()
	if before.After(time.Unix(cut, 0)) {
		cut++
	}
	return db.update(func(tx *bolt.Tx) error {
		for _, s := range db.series {
			for i := 0; i <= ti; i++ {
				if err := db.pruneTier(tx, s, i, cut, true); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Size is the dataset's bytes in memory (its open chunks, as their head
// records, and its chunks the cache of decoded chunks holds) and on disk
// (its chunks and head records, keys included; not the engine's page
// overhead).
func (db *DB) Size(dataset string) (incore, ondisk int64) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	s := db.series[dataset]
	if s == nil {
		return 0, 0
	}
	for i := range s.open {
		incore += s.open[i].bytes
		ondisk += s.ondisk[i]
	}
	return incore + db.cache.bytesOf(dataset), ondisk
}

// CacheStats describes the cache of decoded chunks (zero when there is
// none).
func (db *DB) CacheStats() CacheStats {
	return db.cache.stats()
}

// TierSize is Size for one tier, the cache of decoded chunks not counted.
func (db *DB) TierSize(dataset string, g analytics.Granularity) (incore, ondisk int64) {
	ti, err := tierIndex(g)
	if err != nil {
		return 0, 0
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	if s := db.series[dataset]; s != nil {
		return s.open[ti].bytes, s.ondisk[ti]
	}
	return 0, 0
}

// Flush encodes every open chunk into its compressed chunk now, rather
// than when its window ends (appends that follow in the same window
// extend it). Nothing needs it for durability; it makes the on-disk size
// the compressed one, for measurements.
func (db *DB) Flush() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return errClosed
	}
	return db.update(func(tx *bolt.Tx) error {
		for _, s := range db.series {
			for ti := range s.open {
				if len(s.open[ti].times) == 0 {
					continue
				}
				// The open minute or hour is still being summed: it
				// stays a head record.
				if err := db.closeChunk(tx, s, ti, ti > 0); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// DiskBytes is what the disk cap counts: all datasets' on-disk bytes.
func (db *DB) DiskBytes() int64 {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.total()
}

func (db *DB) total() int64 {
	var n int64
	for _, s := range db.series {
		for _, b := range s.ondisk {
			n += b
		}
	}
	return n
}

// Corrupt reports the chunks found corrupt (bad checksum) since Open:
// they are skipped, and the rest of the store stays readable. Each is
// described as "DATASET TIER TIME" (the chunk's window, or the head
// record's interval), once.
func (db *DB) Corrupt() []string {
	db.cmu.Lock()
	defer db.cmu.Unlock()
	return slices.Clone(db.corrupt)
}

func (db *DB) reportCorrupt(dataset string, ti int, what string, t int64) {
	d := fmt.Sprintf("%s %s %s %s", dataset, db.tiers[ti].g, what, time.Unix(t, 0).UTC().Format(time.RFC3339))
	db.cmu.Lock()
	defer db.cmu.Unlock()
	if !slices.Contains(db.corrupt, d) {
		db.corrupt = append(db.corrupt, d)
	}
}
