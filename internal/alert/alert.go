// Package alert is sonded's threshold alerts, as the appliance (Fishworks)
// had them: a threshold watches a dataset's per-second values — the same
// seconds the store gets, handed over by the agent's tick — and posts an
// alert when the value stays past a limit for minpost seconds, re-notifies
// every frequency seconds while it persists, and clears when it has been
// back for minclear seconds. On a breakdown a threshold can watch each key
// (one alert per execname over the limit) or the total; on a distribution,
// a percentile or the share of events at or above a value.
//
// Each alert of a threshold (one per key, or one for the total) is a state
// machine in Prometheus's style: inactive, pending (the condition holds,
// not yet for minpost), firing (posted), clearing (the condition has gone,
// not yet for minclear). Time is the samples' own: a second's end is its
// clock, so that tests drive the machine with seconds of their making, and
// the days and time-of-day window are judged on it, in UTC as the
// appliance did.
//
// Actions — webhook, email, syslog, Prometheus Alertmanager (re-sent
// while the alert lasts), SNMP traps (docs/mib/SONDE-MIB.txt), suspending
// or resuming a dataset, and a capture (a D program run through
// internal/tracer for a while when the alert posts, its stacks and flame
// graph attached to the event) — are grouped as the appliance grouped
// them: an action of category thresholds names a threshold and holds
// items, each with a handler and whether it runs on post, on clear or
// both. Each item runs in its own goroutine with
// a timeout and retries with backoff; every attempt is recorded in the
// alert's event (delivered, or failed and why). A failing or hanging
// action never delays the others, the agent or the next second.
//
// Thresholds, actions and events are kept in the store's meta documents.
package alert

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// Prefix is where the alert service lives.
const Prefix = "/api/alert/v1"

// The appliance's defaults (its threshold properties: minpost five
// minutes; minclear and frequency likewise), days all, no window.
const (
	DefaultMinpost   = 300
	DefaultMinclear  = 300
	DefaultFrequency = 300
)

// Threshold types.
const (
	Normal   = "normal"   // fire above the limit
	Inverted = "inverted" // fire below it
)

// Days.
const (
	AllDays  = "all"
	Weekdays = "weekdays"
	Weekends = "weekends"
)

// None is the window bound that means "any time".
const None = "none"

// Threshold is one watch. Durations are in seconds.
type Threshold struct {
	ID       string  `json:"uuid"`
	Href     string  `json:"href,omitempty"`
	Statname string  `json:"statname"`
	Limit    float64 `json:"limit"`
	Type     string  `json:"type"`
	// Minpost: how long the condition must hold before the alert posts.
	Minpost int64 `json:"minpost"`
	// Minclear: how long it must be gone before the all-clear.
	Minclear int64 `json:"minclear"`
	// Frequency: re-notify every so many seconds while it persists (0:
	// never).
	Frequency   int64  `json:"frequency"`
	Days        string `json:"days"`
	WindowStart string `json:"window_start"`
	WindowEnd   string `json:"window_end"`
	// PerKey: on a breakdown, one alert per key over the limit instead
	// of one on the total.
	PerKey bool `json:"perkey,omitempty"`
	// Percentile (0 < p <= 100): on a distribution, the value compared
	// is this percentile of the second's events — the lower bound of the
	// bucket it falls in (a percentile is known to its bucket only).
	Percentile float64 `json:"percentile,omitempty"`
	// Above: on a distribution, the value compared is the percent of
	// the second's events in buckets at or above Above (a bucket that
	// straddles it is not counted).
	Above *int64 `json:"above,omitempty"`
	// SilencedUntil: until then, the alert's state changes but no
	// action runs.
	SilencedUntil time.Time `json:"silenced_until,omitzero"`
	Created       time.Time `json:"created,omitzero"`
}

// defaults is a threshold with the appliance's defaults, for a request
// to be decoded onto.
func defaults() Threshold {
	return Threshold{Type: Normal, Minpost: DefaultMinpost, Minclear: DefaultMinclear, Frequency: DefaultFrequency,
		Days: AllDays, WindowStart: None, WindowEnd: None}
}

// check validates what a threshold says of itself (its dataset is the
// engine's to check).
func (t *Threshold) check() error {
	switch {
	case strings.TrimSpace(t.Statname) == "":
		return badf("statname is required")
	case t.Type != Normal && t.Type != Inverted:
		return badf("type %q: want %q or %q", t.Type, Normal, Inverted)
	case t.Minpost < 0 || t.Minclear < 0 || t.Frequency < 0:
		return badf("minpost, minclear and frequency are seconds, not negative (got %d, %d, %d)", t.Minpost, t.Minclear, t.Frequency)
	case t.Days != AllDays && t.Days != Weekdays && t.Days != Weekends:
		return badf("days %q: want all, weekdays or weekends", t.Days)
	case t.Percentile < 0 || t.Percentile > 100:
		return badf("percentile %g: want 0 < p <= 100", t.Percentile)
	case t.Percentile > 0 && t.Above != nil:
		return badf("a threshold compares a percentile or the share above a value, not both")
	case t.Above != nil && (t.Limit < 0 || t.Limit > 100):
		return badf("with above, the limit is a percent of events (0 to 100), got %g", t.Limit)
	}
	for _, w := range []struct{ name, v string }{{"window_start", t.WindowStart}, {"window_end", t.WindowEnd}} {
		if _, err := timeOfDay(w.v); err != nil {
			return badf("%s: %v", w.name, err)
		}
	}
	return nil
}

// timeOfDay reads "HH:MM" as minutes after midnight; "none" (or "") is -1.
func timeOfDay(s string) (int, error) {
	if s == None || s == "" {
		return -1, nil
	}
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || len(m) != 2 || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, fmt.Errorf("%q is not a time of day: want HH:MM (UTC) or none", s)
	}
	return hh*60 + mm, nil
}

// active says whether alerts may post at t: on the threshold's days and
// within its window (UTC). A window from 22:00 to 06:00 spans midnight;
// "none" at either end, or equal ends, is any time.
func (t *Threshold) active(at time.Time) bool {
	at = at.UTC()
	switch wd := at.Weekday(); t.Days {
	case Weekdays:
		if wd == time.Saturday || wd == time.Sunday {
			return false
		}
	case Weekends:
		if wd != time.Saturday && wd != time.Sunday {
			return false
		}
	}
	start, _ := timeOfDay(t.WindowStart)
	end, _ := timeOfDay(t.WindowEnd)
	if start < 0 || end < 0 || start == end {
		return true
	}
	m := at.Hour()*60 + at.Minute()
	if start < end {
		return m >= start && m < end
	}
	return m >= start || m < end
}

// over says whether v is past the limit: above it (normal) or below it
// (inverted).
func (t *Threshold) over(v float64) bool {
	if t.Type == Inverted {
		return v < t.Limit
	}
	return v > t.Limit
}

// value is what the threshold compares of a row: a counter's or gauge's
// value, or of a distribution the percentile or share asked for (ok
// false when the second has no events to judge).
func (t *Threshold) value(r analytics.Row, samples int) (float64, bool) {
	if samples < 1 {
		samples = 1
	}
	switch {
	case t.Percentile > 0:
		return percentile(r.Buckets, t.Percentile)
	case t.Above != nil:
		return shareAbove(r.Buckets, *t.Above)
	}
	return float64(r.Value) / float64(samples), true
}

// percentile is the lower bound of the bucket holding the p-th percentile.
func percentile(bs []analytics.Bucket, p float64) (float64, bool) {
	var total int64
	for _, b := range bs {
		total += b.Count
	}
	if total == 0 {
		return 0, false
	}
	need := p / 100 * float64(total)
	var cum int64
	for _, b := range bs {
		cum += b.Count
		if float64(cum) >= need {
			return float64(b.Min), true
		}
	}
	return float64(bs[len(bs)-1].Min), true
}

// shareAbove is the percent of events in buckets whose lower bound is at
// least v.
func shareAbove(bs []analytics.Bucket, v int64) (float64, bool) {
	var total, above int64
	for _, b := range bs {
		total += b.Count
		if b.Min >= v {
			above += b.Count
		}
	}
	if total == 0 {
		return 0, false
	}
	return 100 * float64(above) / float64(total), true
}

// badf is a caller's error (400).
func badf(format string, args ...any) error {
	return &analytics.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func notFound(what, id string) error {
	return &analytics.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no %s %q", what, id)}
}
