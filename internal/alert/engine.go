package alert

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Meta is where thresholds, actions and events are kept: the store's
// meta documents (a *store.DB, or the agent's MemStore).
type Meta interface {
	PutMeta(key string, value []byte) error
	GetMeta(key string) ([]byte, error)
	ListMeta(prefix string) ([]string, error)
	DeleteMeta(key string) error
}

// Datasets is what the engine needs of the agent: to check a threshold's
// dataset and to suspend or resume one.
type Datasets interface {
	Dataset(name string) (analytics.Dataset, error)
	Statistics() []analytics.Statistic
	SetState(name string, state analytics.State) (analytics.Dataset, error)
}

// Config configures an engine; zero values take the defaults.
type Config struct {
	Meta     Meta
	Datasets Datasets
	// Now is the clock of the records (attempts, silences); the state
	// machines run on the samples' time. Nil is time.Now.
	Now func() time.Time
	// Timeout bounds one attempt of an action (default 10 s); Retries
	// is how many times a failed attempt is tried again (default 3),
	// after Backoff, doubled each time (default 1 s).
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// Host names the machine in the messages (default os.Hostname).
	Host string
	// Link is the agent's base URL, for links in the messages.
	Link string
	Logf func(format string, args ...any)
	// CheckTimeout bounds the checks of a target when an item is
	// configured (an Alertmanager's status; default 5 s).
	CheckTimeout time.Duration
	// ResendTick is how often the posted alerts due to be sent to
	// Alertmanager again are looked for (default 1 s).
	ResendTick time.Duration
	// Capture runs a capture item's D program (default: through
	// internal/tracer); CheckProgram checks one when an item is
	// configured (default: it compiles).
	Capture      Capturer
	CheckProgram func(program string) error
	// MaxCaptures is how many captures may run at once (default 4): a
	// per-key threshold posting for many keys at once does not start a
	// tracing session for each.
	MaxCaptures int
	// MaxCaptureBytes bounds the parts of all captures kept (default
	// DefaultMaxCaptureBytes): past it, the oldest captures' parts are
	// discarded, their records kept and marked.
	MaxCaptureBytes int64
}

// Meta keys.
const (
	keyThreshold = "alert/threshold/"
	keyAction    = "alert/action/"
	keyEvent     = "alert/event/"
	maxEvents    = 1000
)

// Engine evaluates thresholds on each second and runs their actions.
type Engine struct {
	cfg Config

	mu      sync.Mutex
	watches map[string]*watch
	actions map[string]*Action
	events  []*Event
	seq     uint64
	closed  bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// resends are the posted alerts sent to Alertmanager again while
	// they last; loops is the resender's goroutine.
	resends map[string]*resend
	loops   sync.WaitGroup
	// started is when the engine started (SNMP's sysUpTime).
	started time.Time
	// capturing holds a token for each capture running. captureBytes is
	// the size of the captures' parts kept.
	capturing    chan struct{}
	captureBytes int64

	// dirty are the events to write (nil: to delete), by sequence
	// number; the writer writes them outside e.mu, so that neither the
	// agent's tick nor an action waits for the disk. writeMu orders the
	// writes of successive snapshots.
	dirty     map[uint64]*Event
	gone      []string // other documents to delete (an evicted event's captures)
	wake      chan struct{}
	stopWrite chan struct{}
	written   chan struct{}
	writeMu   sync.Mutex
}

// watch is a threshold with its alerts, by key ("" for the total).
type watch struct {
	th     Threshold
	alerts map[string]*machine
	keys   map[string][]string
}

// New opens the engine on its meta documents.
func New(cfg Config) (*Engine, error) {
	if cfg.Meta == nil || cfg.Datasets == nil {
		return nil, fmt.Errorf("alert: meta documents and datasets are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 3
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.CheckTimeout <= 0 {
		cfg.CheckTimeout = 5 * time.Second
	}
	if cfg.ResendTick <= 0 {
		cfg.ResendTick = time.Second
	}
	if cfg.Capture == nil {
		cfg.Capture = runCapture
	}
	if cfg.CheckProgram == nil {
		cfg.CheckProgram = checkProgram
	}
	if cfg.MaxCaptures <= 0 {
		cfg.MaxCaptures = 4
	}
	if cfg.MaxCaptureBytes <= 0 {
		cfg.MaxCaptureBytes = DefaultMaxCaptureBytes
	}
	e := &Engine{cfg: cfg, watches: map[string]*watch{}, actions: map[string]*Action{}, dirty: map[uint64]*Event{}, resends: map[string]*resend{},
		wake: make(chan struct{}, 1), stopWrite: make(chan struct{}), written: make(chan struct{})}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.started = cfg.Now()
	e.capturing = make(chan struct{}, cfg.MaxCaptures)
	if err := e.load(); err != nil {
		return nil, err
	}
	e.resumeResends()
	go e.writer()
	e.loops.Add(1)
	go e.resender()
	return e, nil
}

// Close cancels the actions under way, waits for them and writes the
// events left to write.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.loops.Wait()
	e.wg.Wait()
	close(e.stopWrite)
	<-e.written
	return nil
}

// Wait waits for the actions under way and writes the events (tests).
func (e *Engine) Wait() {
	e.wg.Wait()
	e.flush()
}

// writer writes the dirty events when woken, until Close.
func (e *Engine) writer() {
	defer close(e.written)
	for {
		select {
		case <-e.wake:
			e.flush()
		case <-e.stopWrite:
			e.flush()
			return
		}
	}
}

// flush writes the events dirty now.
func (e *Engine) flush() {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.mu.Lock()
	docs := make(map[string][]byte, len(e.dirty))
	for seq, ev := range e.dirty {
		var b []byte
		if ev != nil {
			var err error
			if b, err = json.Marshal(ev); err != nil {
				e.cfg.Logf("alert: event %s: %v", ev.ID, err)
				continue
			}
		}
		docs[eventKey(seq)] = b
	}
	clear(e.dirty)
	for _, k := range e.gone {
		docs[k] = nil
	}
	e.gone = nil
	e.mu.Unlock()
	keys := make([]string, 0, len(docs))
	for k := range docs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var err error
		if docs[k] == nil {
			err = e.cfg.Meta.DeleteMeta(k)
		} else {
			err = e.cfg.Meta.PutMeta(k, docs[k])
		}
		if err != nil {
			e.cfg.Logf("alert: saving %s: %v", k, err)
		}
	}
}

func (e *Engine) load() error {
	for _, k := range e.list(keyThreshold) {
		var t Threshold
		if err := e.get(k, &t); err != nil {
			e.cfg.Logf("alert: threshold %s: %v", k, err)
			continue
		}
		e.watches[t.ID] = &watch{th: t, alerts: map[string]*machine{}, keys: map[string][]string{}}
	}
	for _, k := range e.list(keyAction) {
		var a Action
		if err := e.get(k, &a); err != nil {
			e.cfg.Logf("alert: action %s: %v", k, err)
			continue
		}
		e.actions[a.ID] = &a
	}
	keys := e.list(keyEvent)
	sort.Strings(keys)
	for _, k := range keys {
		var ev Event
		if err := e.get(k, &ev); err != nil {
			e.cfg.Logf("alert: event %s: %v", k, err)
			continue
		}
		e.events = append(e.events, &ev)
		for i := range ev.Captures {
			c := &ev.Captures[i]
			if c.Bytes == 0 && !c.Discarded {
				// kept before captures had a size
				for _, part := range captureParts {
					if b, err := e.cfg.Meta.GetMeta(captureKey(ev.ID, c.Item, part)); err == nil {
						c.Bytes += int64(len(b))
					}
				}
			}
			e.captureBytes += c.Bytes
		}
		var seq uint64
		if _, err := fmt.Sscanf(strings.TrimPrefix(k, keyEvent), "%d", &seq); err == nil {
			ev.seq, e.seq = seq, max(e.seq, seq)
		}
		e.resume(&ev)
	}
	e.keepWithinBudget()
	return nil
}

// resumeResends sends the alerts still posted after a restart to their
// Alertmanagers again, now and then every resend interval.
func (e *Engine) resumeResends() {
	now := e.cfg.Now()
	for _, w := range e.watches {
		for k, m := range w.alerts {
			if m.state != Firing || m.event == nil {
				continue
			}
			n := e.notice(&w.th, m.event, Renotify, w.keys[k], m.event.Value, m.event.Notified)
			for _, r := range e.runsFor(w.th.ID, Renotify, n) {
				if r.item.Handler == Alertmanager {
					e.resends[resendKey(r)] = &resend{r: r, next: now}
				}
			}
		}
	}
}

// resume puts an alert that was posted and not cleared when the agent
// stopped back in its threshold, firing: it clears (and runs its clear
// actions) once the condition is gone, and does not post again while it
// persists.
func (e *Engine) resume(ev *Event) {
	w := e.watches[ev.Threshold]
	if w == nil || ev.State != "posted" {
		return
	}
	if w.th.PerKey != (len(ev.Key) > 0) {
		return
	}
	notified := ev.Notified
	if notified.IsZero() {
		notified = ev.Posted
	}
	k := strings.Join(ev.Key, "\x00")
	w.alerts[k] = &machine{state: Firing, notified: notified, event: ev}
	w.keys[k] = ev.Key
}

func (e *Engine) list(prefix string) []string {
	keys, err := e.cfg.Meta.ListMeta(prefix)
	if err != nil {
		e.cfg.Logf("alert: listing %s: %v", prefix, err)
	}
	return keys
}

func (e *Engine) get(key string, v any) error {
	b, err := e.cfg.Meta.GetMeta(key)
	if err != nil {
		return err
	}
	if b == nil {
		return fmt.Errorf("%s: missing", key)
	}
	return json.Unmarshal(b, v)
}

// put keeps a document; a failure is logged (memory stays right).
func (e *Engine) put(key string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = e.cfg.Meta.PutMeta(key, b)
	}
	if err != nil {
		e.cfg.Logf("alert: saving %s: %v", key, err)
	}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// resolve checks a threshold against its dataset: it must exist, and a
// percentile or share needs a distribution. The statname becomes the
// dataset's canonical name.
func (e *Engine) resolve(t *Threshold) error {
	if err := t.check(); err != nil {
		return err
	}
	ds, err := e.cfg.Datasets.Dataset(t.Statname)
	if err != nil {
		return badf("statname %q: no such dataset (create it first: POST /api/analytics/v1/datasets)", t.Statname)
	}
	t.Statname = ds.Name
	kind := analytics.Counter
	for _, s := range e.cfg.Datasets.Statistics() {
		if s.Name == ds.Statistic {
			kind = s.Kind
		}
	}
	if (t.Percentile > 0 || t.Above != nil) && kind != analytics.Distribution {
		return badf("%s is a %s: a percentile or a share above a value needs a distribution", ds.Statistic, kind)
	}
	if t.PerKey && len(ds.Breakdowns) == 0 {
		return badf("perkey: %s has no breakdown", ds.Name)
	}
	return nil
}

// Thresholds lists the thresholds.
func (e *Engine) Thresholds() []Threshold {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Threshold, 0, len(e.watches))
	for _, w := range e.watches {
		out = append(out, w.th)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || out[i].Created.Equal(out[j].Created) && out[i].ID < out[j].ID
	})
	return out
}

// Threshold returns one threshold.
func (e *Engine) Threshold(id string) (Threshold, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.watches[id]
	if w == nil {
		return Threshold{}, notFound("threshold", id)
	}
	return w.th, nil
}

// AlertStatus is one alert of a threshold that is not inactive.
type AlertStatus struct {
	Key   []string  `json:"key,omitempty"`
	State State     `json:"state"`
	Since time.Time `json:"since"`
	Event string    `json:"event,omitempty"`
}

// Alerts lists a threshold's alerts that are not inactive.
func (e *Engine) Alerts(id string) ([]AlertStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.watches[id]
	if w == nil {
		return nil, notFound("threshold", id)
	}
	var out []AlertStatus
	for k, m := range w.alerts {
		if m.state == Inactive {
			continue
		}
		s := AlertStatus{Key: w.keys[k], State: m.state, Since: m.since}
		if m.event != nil {
			s.Event = m.event.ID
			if m.state == Firing {
				s.Since = m.event.Posted
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i].Key, "\x00") < strings.Join(out[j].Key, "\x00") })
	return out, nil
}

// CreateThreshold adds a threshold: t holds the request decoded onto the
// defaults.
func (e *Engine) CreateThreshold(t Threshold) (Threshold, error) {
	t.ID, t.Href, t.SilencedUntil = newID(), "", time.Time{}
	if err := e.resolve(&t); err != nil {
		return Threshold{}, err
	}
	t.Created = e.cfg.Now().UTC()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watches[t.ID] = &watch{th: t, alerts: map[string]*machine{}, keys: map[string][]string{}}
	e.put(keyThreshold+t.ID, t)
	return t, nil
}

// UpdateThreshold replaces a threshold's settings (update is applied to
// the current settings). Its alerts start again from inactive when what
// they watch changes.
func (e *Engine) UpdateThreshold(id string, update func(*Threshold) error) (Threshold, error) {
	cur, err := e.Threshold(id)
	if err != nil {
		return Threshold{}, err
	}
	t := cur
	if err := update(&t); err != nil {
		return Threshold{}, err
	}
	t.ID, t.Href, t.Created, t.SilencedUntil = cur.ID, "", cur.Created, cur.SilencedUntil
	if err := e.resolve(&t); err != nil {
		return Threshold{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.watches[id]
	if w == nil {
		return Threshold{}, notFound("threshold", id)
	}
	if t.Statname != w.th.Statname || t.PerKey != w.th.PerKey || t.Percentile != w.th.Percentile || (t.Above == nil) != (w.th.Above == nil) {
		e.end(w)
	}
	w.th = t
	e.put(keyThreshold+id, t)
	return t, nil
}

// DeleteThreshold removes a threshold and the actions that name it.
func (e *Engine) DeleteThreshold(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.watches[id]
	if w == nil {
		return notFound("threshold", id)
	}
	e.end(w)
	delete(e.watches, id)
	if err := e.cfg.Meta.DeleteMeta(keyThreshold + id); err != nil {
		return fmt.Errorf("deleting threshold %s: %w", id, err)
	}
	for aid, a := range e.actions {
		if a.ThresholdID == id {
			delete(e.actions, aid)
			_ = e.cfg.Meta.DeleteMeta(keyAction + aid)
		}
	}
	return nil
}

// end ends a threshold's alerts, as it is deleted or changed to watch
// something else: their events say "ended" (no clear actions run), and
// the alerts start again from inactive (e.mu held).
func (e *Engine) end(w *watch) {
	now := e.cfg.Now().UTC()
	for _, m := range w.alerts {
		if m.event != nil {
			m.event.State, m.event.Cleared = "ended", now
			e.saveEvent(m.event)
			for _, r := range e.untrack(m.event.ID, now) {
				e.start(r)
			}
		}
	}
	w.alerts, w.keys = map[string]*machine{}, map[string][]string{}
}

// Silence keeps a threshold's actions from running for d (0 lifts the
// silence). Its alerts still change state, and their events say that
// they were silenced.
func (e *Engine) Silence(id string, d time.Duration) (Threshold, error) {
	if d < 0 {
		return Threshold{}, badf("a silence lasts 0 seconds or more, got %v", d)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.watches[id]
	if w == nil {
		return Threshold{}, notFound("threshold", id)
	}
	w.th.SilencedUntil = time.Time{}
	if d > 0 {
		w.th.SilencedUntil = e.cfg.Now().UTC().Add(d)
	}
	e.put(keyThreshold+id, w.th)
	return w.th, nil
}

// Events lists the alert events, oldest first.
func (e *Engine) Events() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Event, len(e.events))
	for i, ev := range e.events {
		out[i] = ev.copy()
	}
	return out
}

// Event returns one event.
func (e *Engine) Event(id string) (Event, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.events {
		if ev.ID == id {
			return ev.copy(), nil
		}
	}
	return Event{}, notFound("event", id)
}

// Observe evaluates the thresholds on dataset with one of its seconds and
// starts the actions of the alerts it posts, re-notifies or clears. The
// agent calls it from its tick, after the second is kept; it does not
// wait for the actions.
func (e *Engine) Observe(dataset string, s analytics.Second) {
	samples := max(s.Samples, 1)
	start := s.Time
	end := start.Add(time.Duration(samples) * time.Second)
	var runs []run
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	for _, w := range e.sortedWatches() {
		if w.th.Statname != dataset {
			continue
		}
		runs = append(runs, e.evaluate(w, s, start, end)...)
	}
	e.track(runs)
	e.mu.Unlock()
	for _, r := range runs {
		e.start(r)
	}
}

func (e *Engine) sortedWatches() []*watch {
	out := make([]*watch, 0, len(e.watches))
	for _, w := range e.watches {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].th.ID < out[j].th.ID })
	return out
}

// evaluate steps a threshold's alerts by one second (e.mu held) and
// returns the actions to run.
func (e *Engine) evaluate(w *watch, s analytics.Second, start, end time.Time) []run {
	t := &w.th
	values := map[string]float64{}
	judged := map[string]bool{}
	if t.PerKey {
		for _, r := range s.Rows {
			k := strings.Join(r.Key, "\x00")
			w.keys[k] = r.Key
			values[k], judged[k] = t.value(r, s.Samples)
		}
		for k := range w.alerts {
			if _, ok := judged[k]; !ok {
				values[k], judged[k] = t.value(analytics.Row{}, s.Samples) // absent this second: zero
			}
		}
	} else {
		values[""], judged[""] = t.value(total(s.Rows), s.Samples)
	}
	active := t.active(start)
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var runs []run
	for _, k := range keys {
		if !judged[k] {
			continue // a distribution's second without events judges nothing
		}
		m := w.alerts[k]
		if m == nil {
			m = &machine{state: Inactive}
		}
		over := t.over(values[k])
		step := m.step(t, start, end, over, active)
		if m.state != Inactive {
			w.alerts[k] = m
		} else {
			delete(w.alerts, k)
			delete(w.keys, k)
		}
		if step != Nothing {
			runs = append(runs, e.transition(w, m, w.keys[k], step, values[k], end)...)
		}
	}
	return runs
}

// total sums a second's rows: values, and buckets by range (an index is
// a position in one scale, and a dataset exported after its creation has
// two), in order of value.
func total(rows []analytics.Row) analytics.Row {
	var t analytics.Row
	byRange := map[[2]int64]int{}
	for _, r := range rows {
		t.Value += r.Value
		for _, b := range r.Buckets {
			k := [2]int64{b.Min, int64(b.Max)}
			if i, ok := byRange[k]; ok {
				t.Buckets[i].Count += b.Count
				continue
			}
			byRange[k] = len(t.Buckets)
			t.Buckets = append(t.Buckets, b)
		}
	}
	sort.Slice(t.Buckets, func(i, j int) bool {
		if t.Buckets[i].Min != t.Buckets[j].Min {
			return t.Buckets[i].Min < t.Buckets[j].Min
		}
		return t.Buckets[i].Max < t.Buckets[j].Max
	})
	return t
}

// transition records a step in the alert's event and returns the actions
// it runs (e.mu held).
func (e *Engine) transition(w *watch, m *machine, key []string, step Step, v float64, at time.Time) []run {
	t := &w.th
	silenced := e.cfg.Now().Before(t.SilencedUntil)
	switch step {
	case Post:
		m.event = e.newEvent(t, key, v, at)
	case Renotify:
		m.event.Notifications++
		m.event.Value, m.event.Notified = v, at.UTC()
	case Clear:
		if m.event != nil {
			m.event.Cleared, m.event.ClearValue, m.event.State = at, v, "cleared"
		}
	}
	ev := m.event
	if step == Clear {
		m.event = nil
	}
	if ev == nil {
		return nil
	}
	if silenced {
		ev.Silenced = append(ev.Silenced, string(step))
	}
	e.saveEvent(ev)
	if silenced {
		return nil
	}
	return e.runsFor(t.ID, step, e.notice(t, ev, step, key, v, at))
}

// notice is what the actions of a step of ev say.
func (e *Engine) notice(t *Threshold, ev *Event, step Step, key []string, v float64, at time.Time) Notice {
	return Notice{What: string(step), Event: ev.ID, Threshold: t.ID, Statname: t.Statname, Key: key, Value: v, Limit: t.Limit,
		Type: t.Type, Time: at.UTC(), Posted: ev.Posted, Host: e.cfg.Host, Link: e.link(t)}
}

func (e *Engine) link(t *Threshold) string {
	if e.cfg.Link == "" {
		return ""
	}
	return strings.TrimRight(e.cfg.Link, "/") + "/api/analytics/v1/datasets/" + pathEscape(t.Statname)
}

func (e *Engine) newEvent(t *Threshold, key []string, v float64, at time.Time) *Event {
	e.seq++
	ev := &Event{ID: fmt.Sprintf("alert-%06d", e.seq), seq: e.seq, Threshold: t.ID, Statname: t.Statname, Key: key, Type: t.Type,
		Limit: t.Limit, State: "posted", Posted: at.UTC(), Notified: at.UTC(), Value: v, Notifications: 1}
	e.events = append(e.events, ev)
	if len(e.events) > maxEvents {
		e.evict()
	}
	return ev
}

// evict forgets the oldest event that is not a posted alert's (whose
// clear is still to come), or the oldest of all (e.mu held).
func (e *Engine) evict() {
	i := 0
	for j, ev := range e.events {
		if ev.State != "posted" {
			i = j
			break
		}
	}
	old := e.events[i]
	e.events = append(e.events[:i], e.events[i+1:]...)
	e.dirty[old.seq] = nil
	for _, c := range old.Captures {
		for _, part := range captureParts {
			e.gone = append(e.gone, captureKey(old.ID, c.Item, part))
		}
		e.captureBytes -= c.Bytes
	}
	e.poke()
}

func eventKey(seq uint64) string { return fmt.Sprintf("%s%016d", keyEvent, seq) }

// saveEvent marks ev to be written (e.mu held).
func (e *Engine) saveEvent(ev *Event) {
	if ev.seq == 0 {
		fmt.Sscanf(strings.TrimPrefix(ev.ID, "alert-"), "%d", &ev.seq)
	}
	e.dirty[ev.seq] = ev
	e.poke()
}

// poke wakes the writer.
func (e *Engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// status is the HTTP status of err: its own, or 500.
func status(err error) int {
	var ae *analytics.Error
	if errors.As(err, &ae) {
		return ae.Status
	}
	return http.StatusInternalServerError
}
