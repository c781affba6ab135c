// Package apitest is an in-memory analytics.Backend for the API's and the
// CLI's tests: datasets, data, worksheets and events kept in maps, a fake
// clock, and a live second that a test completes by hand so that a read
// waiting for it can be tested without sleeping.
package apitest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Fake is an in-memory backend. Its clock starts at Epoch; Complete
// advances it.
type Fake struct {
	mu         sync.Mutex
	now        time.Time
	stats      []analytics.Statistic
	sets       map[string]*analytics.Dataset
	nextID     int
	data       map[string]map[analytics.Granularity][]analytics.Second
	events     []analytics.Event
	worksheets []analytics.Worksheet
	nextWS     int
	changed    chan struct{}
	// Calls records each call that changes something, as
	// "Create(spec, state)", in order.
	Calls []string
	// Waiting receives a dataset's name each time a read starts waiting
	// for a second to complete.
	Waiting chan string
}

// Epoch is the fake clock's start: 2026-11-25T10:00:00Z.
var Epoch = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// New returns a fake with a small catalogue.
func New() *Fake {
	return &Fake{
		now: Epoch, sets: map[string]*analytics.Dataset{},
		data:    map[string]map[analytics.Granularity][]analytics.Second{},
		changed: make(chan struct{}), Waiting: make(chan string, 16),
		stats: []analytics.Statistic{
			{Name: "syscall.ops", Description: "system calls per second", Kind: analytics.Counter, Unit: "operations per second",
				Breakdowns: []analytics.Breakdown{{Name: "execname", Description: "process name"}, {Name: "name", Description: "system call"}}},
			{Name: "io.latency", Description: "I/O latency", Kind: analytics.Distribution, Unit: "nanoseconds",
				Breakdowns: []analytics.Breakdown{{Name: "device", Description: "disk"}}},
			{Name: "cpu.utilization", Description: "CPU utilization", Kind: analytics.Gauge, Unit: "percent", Static: true,
				Breakdowns: []analytics.Breakdown{{Name: "mode", Description: "user, kernel or idle"}}},
		},
	}
}

// Now is the fake clock.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *Fake) record(format string, args ...any) {
	f.Calls = append(f.Calls, fmt.Sprintf(format, args...))
}

func userErr(status int, format string, args ...any) error {
	return &analytics.Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// Statistics implements analytics.Backend.
func (f *Fake) Statistics() []analytics.Statistic {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.stats)
}

// Datasets implements analytics.Backend, in creation order.
func (f *Fake) Datasets() []analytics.Dataset {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []analytics.Dataset
	for _, d := range f.sets {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b analytics.Dataset) int { return a.Created.Compare(b.Created) })
	return out
}

// Dataset implements analytics.Backend.
func (f *Fake) Dataset(name string) (analytics.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.sets[name]
	if !ok {
		return analytics.Dataset{}, userErr(http.StatusNotFound, "no dataset %q", name)
	}
	return *d, nil
}

// parse splits a spec naively: statistic[a=b][c]... (values without
// "][").
func (f *Fake) parse(spec string) (analytics.Dataset, error) {
	stat, rest, _ := strings.Cut(spec, "[")
	if !slices.ContainsFunc(f.stats, func(s analytics.Statistic) bool { return s.Name == stat }) {
		return analytics.Dataset{}, userErr(http.StatusBadRequest, "%s\n^\ndataset spec:1:1: unknown statistic %q", spec, stat)
	}
	d := analytics.Dataset{Name: spec, Statistic: stat}
	if rest == "" {
		return d, nil
	}
	if !strings.HasSuffix(rest, "]") {
		return analytics.Dataset{}, userErr(http.StatusBadRequest, "%s\n%s^\ndataset spec:1:%d: expected ]", spec, strings.Repeat(" ", len(spec)), len(spec)+1)
	}
	for _, part := range strings.Split(strings.TrimSuffix(rest, "]"), "][") {
		if k, v, ok := strings.Cut(part, "="); ok {
			d.Filters = append(d.Filters, analytics.Filter{Breakdown: k, Value: v})
		} else {
			d.Breakdowns = append(d.Breakdowns, part)
		}
	}
	return d, nil
}

// Create implements analytics.Backend.
func (f *Fake) Create(spec string, state analytics.State) (analytics.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Create(%s, %s)", spec, state)
	if _, ok := f.sets[spec]; ok {
		return analytics.Dataset{}, userErr(http.StatusConflict, "dataset %q exists", spec)
	}
	d, err := f.parse(spec)
	if err != nil {
		return d, err
	}
	d.State = state
	d.ID = f.nextID
	f.nextID++
	d.Created = f.now.Add(time.Duration(len(f.sets)) * time.Nanosecond)
	d.InCore, d.OnDisk = 1300000, 16252928
	d.Program = "syscall:::entry { @a = count(); }"
	f.sets[spec] = &d
	f.events = append(f.events, analytics.Event{Time: f.now, Kind: "created", Dataset: spec, Message: "created"})
	return d, nil
}

// DefineStatistic implements analytics.Backend.
func (f *Fake) DefineStatistic(name, description, source string) (analytics.Statistic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("DefineStatistic(%q, %q, %q)", name, description, source)
	if !strings.Contains(source, "@") {
		return analytics.Statistic{}, userErr(http.StatusBadRequest, "%s\n^\nuser statistic:1:1: no aggregation", source)
	}
	s := analytics.Statistic{Name: name, Description: description, Kind: analytics.Counter, User: true, Source: source}
	f.stats = append(f.stats, s)
	return s, nil
}

// SetState implements analytics.Backend.
func (f *Fake) SetState(name string, state analytics.State) (analytics.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("SetState(%s, %s)", name, state)
	d, ok := f.sets[name]
	if !ok {
		return analytics.Dataset{}, userErr(http.StatusNotFound, "no dataset %q", name)
	}
	d.State = state
	return *d, nil
}

// SetExport implements analytics.Backend.
func (f *Fake) SetExport(name string, export bool) (analytics.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("SetExport(%s, %v)", name, export)
	d, ok := f.sets[name]
	if !ok {
		return analytics.Dataset{}, userErr(http.StatusNotFound, "no dataset %q", name)
	}
	d.Export = export
	return *d, nil
}

// Destroy implements analytics.Backend.
func (f *Fake) Destroy(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Destroy(%s)", name)
	if _, ok := f.sets[name]; !ok {
		return userErr(http.StatusNotFound, "no dataset %q", name)
	}
	delete(f.sets, name)
	delete(f.data, name)
	return nil
}

// Put stores intervals of a dataset (in time order) without moving the
// clock.
func (f *Fake) Put(name string, g analytics.Granularity, secs ...analytics.Second) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data[name] == nil {
		f.data[name] = map[analytics.Granularity][]analytics.Second{}
	}
	f.data[name][g] = append(f.data[name][g], secs...)
}

// Complete stores a second of a dataset and moves the clock to its end:
// reads waiting for it return.
func (f *Fake) Complete(name string, s analytics.Second) {
	f.Put(name, analytics.PerSecond, s)
	f.mu.Lock()
	defer f.mu.Unlock()
	if end := s.Time.Add(time.Second); end.After(f.now) {
		f.now = end
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// Data implements analytics.Backend.
func (f *Fake) Data(ctx context.Context, name string, start time.Time, n int, g analytics.Granularity, wait bool) ([]analytics.Second, error) {
	f.mu.Lock()
	f.record("Data(%s, %s, %d, %s, %v)", name, start.UTC().Format(time.RFC3339), n, g, wait)
	f.mu.Unlock()
	end := start.Add(time.Duration(n) * g.Width())
	for signalled := false; ; {
		f.mu.Lock()
		if _, ok := f.sets[name]; !ok {
			f.mu.Unlock()
			return nil, userErr(http.StatusNotFound, "no dataset %q", name)
		}
		if start.IsZero() || !wait || !end.After(f.now) {
			defer f.mu.Unlock()
			return f.window(name, start, n, g), nil
		}
		changed := f.changed
		f.mu.Unlock()
		if !signalled {
			f.Waiting <- name
			signalled = true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// window returns the stored intervals of [start, start+n) (or the last n).
func (f *Fake) window(name string, start time.Time, n int, g analytics.Granularity) []analytics.Second {
	all := f.data[name][g]
	if start.IsZero() {
		return slices.Clone(all[max(0, len(all)-n):])
	}
	end := start.Add(time.Duration(n) * g.Width())
	var out []analytics.Second
	for _, s := range all {
		if !s.Time.Before(start) && s.Time.Before(end) {
			out = append(out, s)
		}
	}
	return out
}

// Prune implements analytics.Backend.
func (f *Fake) Prune(g analytics.Granularity, before time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Prune(%s, %s)", g, before.UTC().Format(time.RFC3339))
	return nil
}

// Events implements analytics.Backend.
func (f *Fake) Events() []analytics.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}

// AddEvent adds an event.
func (f *Fake) AddEvent(e analytics.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
}

// Worksheets implements analytics.Backend.
func (f *Fake) Worksheets() []analytics.Worksheet {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.worksheets)
}

// SaveWorksheet implements analytics.Backend.
func (f *Fake) SaveWorksheet(w analytics.Worksheet) (analytics.Worksheet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("SaveWorksheet(%s, %s)", w.ID, w.Name)
	w.Updated = f.now
	if w.ID == "" {
		f.nextWS++
		w.ID = fmt.Sprintf("worksheet-%03d", f.nextWS)
		f.worksheets = append(f.worksheets, w)
		return w, nil
	}
	i := slices.IndexFunc(f.worksheets, func(x analytics.Worksheet) bool { return x.ID == w.ID })
	if i < 0 {
		return w, userErr(http.StatusNotFound, "no worksheet %q", w.ID)
	}
	f.worksheets[i] = w
	return w, nil
}

// DeleteWorksheet implements analytics.Backend.
func (f *Fake) DeleteWorksheet(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("DeleteWorksheet(%s)", id)
	i := slices.IndexFunc(f.worksheets, func(x analytics.Worksheet) bool { return x.ID == id })
	if i < 0 {
		return userErr(http.StatusNotFound, "no worksheet %q", id)
	}
	f.worksheets = slices.Delete(f.worksheets, i, i+1)
	return nil
}

var _ analytics.Backend = (*Fake)(nil)
