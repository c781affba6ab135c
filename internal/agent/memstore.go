package agent

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// MemStore is a store in memory with the store's contract (data and
// meta documents, no tiers of its own: coarser reads are rolled up from
// the seconds), for tests and for an agent that keeps nothing on disk.
type MemStore struct {
	mu   sync.Mutex
	secs map[string][]analytics.Second
	meta map[string][]byte
	// Corrupted is what Corrupt reports.
	Corrupted []string
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{secs: map[string][]analytics.Second{}, meta: map[string][]byte{}}
}

// Append appends a second after the last one.
func (m *MemStore) Append(ds string, s analytics.Second) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.secs[ds]; len(l) > 0 && !s.Time.After(l[len(l)-1].Time) {
		return fmt.Errorf("second %v at or before the last", s.Time)
	}
	m.secs[ds] = append(m.secs[ds], s)
	return nil
}

// Read returns the intervals of g that start in [from, to).
func (m *MemStore) Read(ds string, from, to time.Time, g analytics.Granularity) ([]analytics.Second, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []analytics.Second
	for _, s := range m.secs[ds] {
		if !s.Time.Before(from) && s.Time.Before(to) {
			out = append(out, s)
		}
	}
	return rollup(out, g), nil
}

// Last is the start of the dataset's last second.
func (m *MemStore) Last(ds string) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.secs[ds]; len(l) > 0 {
		return l[len(l)-1].Time
	}
	return time.Time{}
}

// Delete removes a dataset's data.
func (m *MemStore) Delete(ds string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.secs, ds)
	return nil
}

// Prune keeps everything: MemStore has no tiers.
func (m *MemStore) Prune(analytics.Granularity, time.Time) error { return nil }

// Size counts the seconds kept as the bytes on disk.
func (m *MemStore) Size(ds string) (int64, int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return 0, int64(len(m.secs[ds]))
}

// PutMeta keeps a document.
func (m *MemStore) PutMeta(k string, v []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.meta[k] = append([]byte(nil), v...)
	return nil
}

// GetMeta returns a document, nil if none.
func (m *MemStore) GetMeta(k string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.meta[k], nil
}

// ListMeta lists the keys with prefix, in order.
func (m *MemStore) ListMeta(prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.meta {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

// DeleteMeta removes a document.
func (m *MemStore) DeleteMeta(k string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.meta, k)
	return nil
}

// Corrupt returns Corrupted.
func (m *MemStore) Corrupt() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.Corrupted...)
}
