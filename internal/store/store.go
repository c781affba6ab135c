// Package store is sonded's embedded time-series store: every dataset's
// per-second values, rolled up into minutes and hours, compressed in
// chunks, crash-safe, with retention per tier and a total disk cap. It
// knows nothing of BPF or D: it stores analytics.Seconds by dataset name.
//
// (Contract for the implementation: the types and methods below are what
// the agent uses; see docs/format/store.md for the on-disk format.)
package store

import (
	"errors"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// ErrNotImplemented is returned by this skeleton.
var ErrNotImplemented = errors.New("store: not implemented yet")

// Options configure a store. Zero values take the defaults.
type Options struct {
	// Retention of each tier: defaults 7 days of seconds, 14 days of
	// minutes, 90 days of hours; a coarser tier never keeps less than a
	// finer one.
	Seconds, Minutes, Hours time.Duration
	// MaxBytes caps the store on disk (0: no cap); past it the oldest
	// data of the finest tier goes first.
	MaxBytes int64
	// Now is the clock (tests inject one); nil is time.Now.
	Now func() time.Time
}

// DB is an open store.
type DB struct{}

// Open opens (or creates) the store in dir.
func Open(dir string, opts *Options) (*DB, error) { return nil, ErrNotImplemented }

// Close flushes and closes the store.
func (db *DB) Close() error { return ErrNotImplemented }

// Append records one second of a dataset (s.Time truncated to the
// second; s.Samples 1). It is durable when Append returns: a kill -9
// afterwards loses nothing of it. Appending a second at or before the
// last one appended for the dataset is an error.
func (db *DB) Append(dataset string, s analytics.Second) error { return ErrNotImplemented }

// Read returns the dataset's intervals of granularity g that start in
// [from, to), in time order; intervals without data are absent.
// Distributions' buckets are summed bucket by bucket, counters summed, and
// Samples says how many seconds each interval holds.
func (db *DB) Read(dataset string, from, to time.Time, g analytics.Granularity) ([]analytics.Second, error) {
	return nil, ErrNotImplemented
}

// Last is the time of the dataset's last second, zero when none.
func (db *DB) Last(dataset string) time.Time { return time.Time{} }

// Delete removes a dataset's data.
func (db *DB) Delete(dataset string) error { return ErrNotImplemented }

// Prune discards the tier's data older than before (the API's "discard
// per-second data older than N").
func (db *DB) Prune(g analytics.Granularity, before time.Time) error { return ErrNotImplemented }

// Size is the dataset's bytes in memory (not yet in closed chunks) and on
// disk.
func (db *DB) Size(dataset string) (incore, ondisk int64) { return 0, 0 }

// PutMeta and GetMeta keep small documents (dataset definitions,
// worksheets, events) by key in the store's durable index.
func (db *DB) PutMeta(key string, value []byte) error { return ErrNotImplemented }

// GetMeta returns the document of key, or nil.
func (db *DB) GetMeta(key string) ([]byte, error) { return nil, ErrNotImplemented }

// ListMeta returns the keys with prefix, in order.
func (db *DB) ListMeta(prefix string) ([]string, error) { return nil, ErrNotImplemented }

// DeleteMeta removes a document.
func (db *DB) DeleteMeta(key string) error { return ErrNotImplemented }

// Corrupt reports the chunks found corrupt (bad checksum) since Open:
// they are skipped, and the rest of the store stays readable.
func (db *DB) Corrupt() []string { return nil }
