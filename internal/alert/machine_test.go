package alert

import (
	"testing"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// monday is a Monday, noon UTC.
var monday = time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)

type rig struct {
	e   *Engine
	m   *meta
	ds  *sets
	clk *clock
}

func newRig(t *testing.T, cfg Config, datasets ...string) *rig {
	t.Helper()
	r := &rig{m: newMeta(), ds: newSets(datasets...), clk: &clock{t: monday}}
	cfg.Meta, cfg.Datasets, cfg.Now, cfg.Host = r.m, r.ds, r.clk.Now, "testhost"
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	r.e = e
	return r
}

func (r *rig) threshold(t *testing.T, th Threshold) Threshold {
	t.Helper()
	d := defaults()
	if th.Type == "" {
		th.Type = d.Type
	}
	if th.Days == "" {
		th.Days = d.Days
	}
	if th.WindowStart == "" {
		th.WindowStart, th.WindowEnd = None, None
	}
	out, err := r.e.CreateThreshold(th)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// second feeds one second starting at at, of a dataset without
// breakdowns, holding v.
func (r *rig) second(ds string, at time.Time, v int64) {
	r.e.Observe(ds, analytics.Second{Time: at, Samples: 1, Rows: []analytics.Row{{Value: v}}})
}

func (r *rig) keyed(ds string, at time.Time, kv map[string]int64) {
	s := analytics.Second{Time: at, Samples: 1}
	for k, v := range kv {
		s.Rows = append(s.Rows, analytics.Row{Key: []string{k}, Value: v})
	}
	r.e.Observe(ds, s)
}

func sec(i int) time.Time { return monday.Add(time.Duration(i) * time.Second) }

// An alert posts once the condition has held minpost seconds and not
// before, re-notifies every frequency seconds while it holds, survives a
// second back within the limit (clearing, then firing again without a new
// post), and clears once back for minclear seconds.
func TestMachinePostRenotifyClear(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	th := r.threshold(t, Threshold{Statname: "fake.ops", Limit: 100, Minpost: 3, Minclear: 2, Frequency: 4})
	vals := []int64{50, 150, 150, 150, 150, 150, 150, 150, 50, 150, 50, 50, 50}
	type want struct {
		events        int
		state         State
		notifications int
		cleared       bool
	}
	wants := []want{
		{0, "", 0, false},
		{0, Pending, 0, false},
		{0, Pending, 0, false},
		{1, Firing, 1, false}, // held seconds 1..3: three seconds
		{1, Firing, 1, false},
		{1, Firing, 1, false},
		{1, Firing, 1, false},
		{1, Firing, 2, false}, // four seconds after the post
		{1, Clearing, 2, false},
		{1, Firing, 2, false}, // back over: no new post
		{1, Clearing, 2, false},
		{1, "", 2, true}, // two seconds back within the limit
		{1, "", 2, true},
	}
	for i, v := range vals {
		r.second("fake.ops", sec(i), v)
		evs := r.e.Events()
		alerts, _ := r.e.Alerts(th.ID)
		var state State
		if len(alerts) == 1 {
			state = alerts[0].State
		}
		w := wants[i]
		if len(evs) != w.events || state != w.state {
			t.Fatalf("second %d (value %d): %d events, state %q; want %d, %q", i, v, len(evs), state, w.events, w.state)
		}
		if len(evs) == 1 && (evs[0].Notifications != w.notifications || !evs[0].Cleared.IsZero() != w.cleared) {
			t.Fatalf("second %d: event %+v; want %d notifications, cleared %v", i, evs[0], w.notifications, w.cleared)
		}
	}
	ev := r.e.Events()[0]
	if !ev.Posted.Equal(sec(4)) || !ev.Cleared.Equal(sec(12)) || ev.Value != 150 || ev.ClearValue != 50 || ev.State != "cleared" {
		t.Errorf("event %+v: want posted at %v, cleared at %v", ev, sec(4), sec(12))
	}
}

// An inverted threshold fires below its limit; minpost 0 posts in the
// first second over.
func TestMachineInverted(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	r.threshold(t, Threshold{Statname: "fake.ops", Type: Inverted, Limit: 10, Minpost: 0, Minclear: 0})
	r.second("fake.ops", sec(0), 50)
	if n := len(r.e.Events()); n != 0 {
		t.Fatalf("50 is not below 10, yet %d events", n)
	}
	r.second("fake.ops", sec(1), 5)
	evs := r.e.Events()
	if len(evs) != 1 || evs[0].Value != 5 || !evs[0].Posted.Equal(sec(2)) {
		t.Fatalf("events %+v: want one posted at %v with 5", evs, sec(2))
	}
	r.second("fake.ops", sec(2), 50)
	if evs := r.e.Events(); evs[0].Cleared.IsZero() {
		t.Fatalf("minclear 0: not cleared in the first second back: %+v", evs[0])
	}
}

// Days and the time-of-day window (UTC), judged on the samples' time: an
// alert posts only within them. The window may span midnight.
func TestMachineDaysAndWindow(t *testing.T) {
	saturday := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(day time.Time, hhmm string) time.Time {
		m, _ := timeOfDay(hhmm)
		return day.Truncate(24 * time.Hour).Add(time.Duration(m) * time.Minute)
	}
	cases := []struct {
		days, start, end string
		when             time.Time
		post             bool
	}{
		{AllDays, None, None, saturday, true},
		{Weekdays, None, None, saturday, false},
		{Weekdays, None, None, monday, true},
		{Weekends, None, None, saturday, true},
		{Weekends, None, None, monday, false},
		{AllDays, "09:00", "17:00", at(monday, "08:59"), false},
		{AllDays, "09:00", "17:00", at(monday, "09:00"), true},
		{AllDays, "09:00", "17:00", at(monday, "16:59"), true},
		{AllDays, "09:00", "17:00", at(monday, "17:00"), false},
		{AllDays, "22:00", "06:00", at(monday, "21:59"), false},
		{AllDays, "22:00", "06:00", at(monday, "23:30"), true},
		{AllDays, "22:00", "06:00", at(monday, "05:59"), true},
		{AllDays, "22:00", "06:00", at(monday, "06:00"), false},
		{AllDays, "22:00", None, at(monday, "06:00"), true},
		{Weekdays, "09:00", "17:00", at(saturday, "10:00"), false},
	}
	for _, c := range cases {
		r := newRig(t, Config{}, "fake.ops")
		r.threshold(t, Threshold{Statname: "fake.ops", Limit: 1, Days: c.days, WindowStart: c.start, WindowEnd: c.end})
		r.e.watches[r.e.Thresholds()[0].ID].th.Minpost = 0
		r.second("fake.ops", c.when, 5)
		if got := len(r.e.Events()) == 1; got != c.post {
			t.Errorf("days %s, window %s-%s, at %s (%s): posted %v, want %v", c.days, c.start, c.end,
				c.when.Format("15:04"), c.when.Weekday(), got, c.post)
		}
	}
}

// A pending alert that leaves the window goes back to inactive: minpost
// counts again from the window's start.
func TestMachinePendingLeavesWindow(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops")
	start := time.Date(2025, 3, 3, 8, 59, 58, 0, time.UTC)
	r.threshold(t, Threshold{Statname: "fake.ops", Limit: 1, Minpost: 3, WindowStart: "22:00", WindowEnd: "09:00"})
	for i := 0; i < 5; i++ {
		r.second("fake.ops", start.Add(time.Duration(i)*time.Second), 5)
	}
	if n := len(r.e.Events()); n != 0 {
		t.Fatalf("posted %d alerts across the window's end after 2 seconds within it", n)
	}
}

// Per key: one alert per key over the limit, each with its own minpost and
// minclear; a key absent from a second counts zero.
func TestMachinePerKey(t *testing.T) {
	r := newRig(t, Config{}, "fake.ops[k]")
	th := r.threshold(t, Threshold{Statname: "fake.ops[k]", Limit: 100, Minpost: 2, Minclear: 1, PerKey: true})
	r.keyed("fake.ops[k]", sec(0), map[string]int64{"a": 200, "b": 10})
	r.keyed("fake.ops[k]", sec(1), map[string]int64{"a": 200, "b": 10})
	r.keyed("fake.ops[k]", sec(2), map[string]int64{"a": 200, "b": 200})
	evs := r.e.Events()
	if len(evs) != 1 || len(evs[0].Key) != 1 || evs[0].Key[0] != "a" || !evs[0].Posted.Equal(sec(2)) {
		t.Fatalf("events %+v: want a's alert posted at %v", evs, sec(2))
	}
	r.keyed("fake.ops[k]", sec(3), map[string]int64{"b": 200})
	evs = r.e.Events()
	if len(evs) != 2 || evs[1].Key[0] != "b" || !evs[1].Posted.Equal(sec(4)) {
		t.Fatalf("events %+v: want b's alert posted at %v", evs, sec(4))
	}
	if evs[0].Cleared.IsZero() || evs[0].ClearValue != 0 {
		t.Errorf("a, absent for minclear, did not clear at zero: %+v", evs[0])
	}
	alerts, _ := r.e.Alerts(th.ID)
	if len(alerts) != 1 || alerts[0].Key[0] != "b" || alerts[0].State != Firing {
		t.Errorf("alerts %+v: want b firing only", alerts)
	}
	// The total: 10+10 is not over 100, 200+10 is.
	r2 := newRig(t, Config{}, "fake.ops[k]")
	r2.threshold(t, Threshold{Statname: "fake.ops[k]", Limit: 100, Minpost: 0})
	r2.keyed("fake.ops[k]", sec(0), map[string]int64{"a": 60, "b": 30})
	r2.keyed("fake.ops[k]", sec(1), map[string]int64{"a": 60, "b": 50})
	if evs := r2.e.Events(); len(evs) != 1 || evs[0].Key != nil || evs[0].Value != 110 {
		t.Errorf("the total: events %+v, want one of 110 with no key", evs)
	}
}

// On a distribution: a percentile (the lower bound of its bucket) or the
// share of events at or above a value.
func TestMachineDistribution(t *testing.T) {
	dist := func(low, high int64) analytics.Second {
		return analytics.Second{Samples: 1, Rows: []analytics.Row{{Value: low + high, Buckets: []analytics.Bucket{
			{Index: 0, Min: 0, Max: 10, Count: low}, {Index: 5, Min: 200, Max: 300, Count: high}}}}}
	}
	r := newRig(t, Config{}, "fake.lat")
	p99 := r.threshold(t, Threshold{Statname: "fake.lat", Limit: 100, Minpost: 0, Percentile: 99})
	above := int64(200)
	share := r.threshold(t, Threshold{Statname: "fake.lat", Limit: 1, Minpost: 0, Above: &above})
	s := dist(995, 5) // p99 in [0,10); 0.5 % at or above 200
	s.Time = sec(0)
	r.e.Observe("fake.lat", s)
	if evs := r.e.Events(); len(evs) != 0 {
		t.Fatalf("p99 0 and 0.5 %% above 200 posted %+v", evs)
	}
	s = dist(980, 20) // p99 in [200,300); 2 % above
	s.Time = sec(1)
	r.e.Observe("fake.lat", s)
	got := map[string]float64{}
	for _, ev := range r.e.Events() {
		got[ev.Threshold] = ev.Value
	}
	if got[p99.ID] != 200 || got[share.ID] != 2 || len(got) != 2 {
		t.Errorf("values posted %v: want p99 200 and share 2", got)
	}
	// A second without events judges nothing: no all-clear from it.
	r.e.Observe("fake.lat", analytics.Second{Time: sec(2), Samples: 1})
	for _, ev := range r.e.Events() {
		if ev.Cleared.IsZero() {
			continue
		}
		t.Errorf("cleared on a second without events: %+v", ev)
	}
}

func secondOf(at time.Time, v int64) analytics.Second {
	return analytics.Second{Time: at, Samples: 1, Rows: []analytics.Row{{Value: v}}}
}
