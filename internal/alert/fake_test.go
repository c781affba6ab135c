package alert

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// meta is the store's meta documents, in memory.
type meta struct {
	mu   sync.Mutex
	docs map[string][]byte
}

func newMeta() *meta { return &meta{docs: map[string][]byte{}} }

func (m *meta) PutMeta(k string, v []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs[k] = append([]byte(nil), v...)
	return nil
}

func (m *meta) GetMeta(k string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.docs[k], nil
}

func (m *meta) ListMeta(p string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k := range m.docs {
		if strings.HasPrefix(k, p) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m *meta) DeleteMeta(k string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.docs, k)
	return nil
}

// sets are datasets: name -> dataset; statistics fake.ops (a counter)
// and fake.lat (a distribution).
type sets struct {
	mu  sync.Mutex
	ds  map[string]analytics.Dataset
	log []string
}

func newSets(names ...string) *sets {
	s := &sets{ds: map[string]analytics.Dataset{}}
	for _, n := range names {
		stat, rest, _ := strings.Cut(n, "[")
		d := analytics.Dataset{Name: n, Statistic: stat, State: analytics.Archived}
		for _, p := range strings.Split(strings.TrimSuffix(rest, "]"), "][") {
			if p != "" && !strings.Contains(p, "=") {
				d.Breakdowns = append(d.Breakdowns, p)
			}
		}
		s.ds[n] = d
	}
	return s
}

func (s *sets) Dataset(name string) (analytics.Dataset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.ds[name]
	if !ok {
		return d, &analytics.Error{Status: http.StatusNotFound, Message: "no dataset " + name}
	}
	return d, nil
}

func (s *sets) Statistics() []analytics.Statistic {
	return []analytics.Statistic{{Name: "fake.ops", Kind: analytics.Counter}, {Name: "fake.lat", Kind: analytics.Distribution}}
}

func (s *sets) SetState(name string, st analytics.State) (analytics.Dataset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.ds[name]
	if !ok {
		return d, &analytics.Error{Status: http.StatusNotFound, Message: "no dataset " + name}
	}
	d.State = st
	s.ds[name] = d
	s.log = append(s.log, name+" "+string(st))
	return d, nil
}

func (s *sets) states() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

// clock is the records' clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
