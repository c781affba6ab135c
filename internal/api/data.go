package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/internal/analytics"
)

// ApplianceTime is the appliance's UTC time format, 20130531T01:13:58.
const ApplianceTime = "20060102T15:04:05"

// timeLayouts are the forms a time may take in a query: the appliance's,
// then ISO 8601 (RFC 3339, with or without a zone; without one, UTC).
var timeLayouts = []string{
	ApplianceTime, "20060102T15:04:05Z07:00", "20060102T150405Z07:00", "20060102T150405",
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05",
}

// ParseTime reads a time as the API takes it: the appliance's
// YYYYMMDDTHH:MM:SS (UTC) or ISO 8601.
func ParseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errorf(http.StatusBadRequest, "bad time %q: want YYYYMMDDTHH:MM:SS (UTC) or ISO 8601 (2006-01-02T15:04:05Z)", s)
}

// granularity reads the granularity parameter (default second).
func granularity(q url.Values) (analytics.Granularity, error) {
	switch g := analytics.Granularity(q.Get("granularity")); g {
	case "":
		return analytics.PerSecond, nil
	case analytics.PerSecond, analytics.PerMinute, analytics.PerHour:
		return g, nil
	default:
		return "", errorf(http.StatusBadRequest, "bad granularity %q: want second, minute or hour", g)
	}
}

// dataQuery is a data request: Data's arguments.
type dataQuery struct {
	g     analytics.Granularity
	start time.Time // zero: the last n
	n     int
	wait  bool
	// columns: the compact, column-shaped answer (format=columns).
	columns bool
}

// parseDataQuery reads start, seconds, granularity and format. seconds is a span
// of time (default one interval) read as whole intervals of the
// granularity; start is now (the live interval, waited for), a time, a
// sample index, or absent (the last intervals). A read that reaches the
// present from a given start waits for the intervals to complete, as on
// the appliance.
func (h *Handler) parseDataQuery(q url.Values) (dataQuery, error) {
	g, err := granularity(q)
	if err != nil {
		return dataQuery{}, err
	}
	st := g.Width()
	secs := int64(st / time.Second)
	if s := q.Get("seconds"); s != "" {
		secs, err = strconv.ParseInt(s, 10, 64)
		if err != nil || secs < 1 {
			return dataQuery{}, errorf(http.StatusBadRequest, "bad seconds %q: want a positive number", s)
		}
	}
	per := int64(st / time.Second)
	n := (secs + per - 1) / per
	if n > int64(h.opts.MaxIntervals) {
		return dataQuery{}, errorf(http.StatusBadRequest, "seconds=%d asks for %d intervals of a %s; at most %d", secs, n, g, h.opts.MaxIntervals)
	}
	dq := dataQuery{g: g, n: int(n)}
	switch f := q.Get("format"); f {
	case "":
	case "columns":
		dq.columns = true
	default:
		return dataQuery{}, errorf(http.StatusBadRequest, "bad format %q: want columns (or no format: the appliance's intervals)", f)
	}
	now := h.opts.Now()
	switch s := q.Get("start"); {
	case s == "":
		return dq, nil
	case s == "now":
		dq.start = now.Truncate(st)
	case isDigits(s):
		idx, err := strconv.ParseInt(s, 10, 64)
		if err != nil || idx > now.Unix()/per {
			return dataQuery{}, errorf(http.StatusBadRequest, "bad sample index %q", s)
		}
		dq.start = time.Unix(idx*per, 0)
	default:
		t, err := ParseTime(s)
		if err != nil {
			return dataQuery{}, err
		}
		dq.start = t.Truncate(st)
	}
	if dq.start.After(now) {
		return dataQuery{}, errorf(http.StatusBadRequest, "start %s is in the future", dq.start.UTC().Format(ApplianceTime))
	}
	dq.start = dq.start.UTC()
	dq.wait = true
	return dq, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// intervalJSON is one interval of data, as the appliance gives it:
// sample (the interval's index since the epoch, in intervals), startTime
// (UTC), samples (the seconds it holds) and data.
type intervalJSON struct {
	Sample    int64     `json:"sample"`
	StartTime string    `json:"startTime"`
	Samples   int       `json:"samples"`
	Data      valueJSON `json:"data"`
}

// valueJSON is an interval's value: the total, the breakdown's keys (when
// the dataset has breakdowns, ranked by value) and, for distributions,
// the total's buckets.
type valueJSON struct {
	Value   int64              `json:"value"`
	Data    *[]keyJSON         `json:"data,omitempty"`
	Buckets []analytics.Bucket `json:"buckets,omitempty"`
}

// keyJSON is one key of a breakdown: Key its values joined by ","
// (the value itself with one breakdown), Keys each value apart (with two
// breakdowns or more).
type keyJSON struct {
	Key     string             `json:"key"`
	Keys    []string           `json:"keys,omitempty"`
	Value   int64              `json:"value"`
	Buckets []analytics.Bucket `json:"buckets,omitempty"`
}

// readData serves GET /datasets/NAME/data.
func (h *Handler) readData(w http.ResponseWriter, r *http.Request, name string) {
	dq, err := h.parseDataQuery(r.URL.Query())
	if err != nil {
		writeFault(w, err)
		return
	}
	d, err := h.b.Dataset(name)
	if err != nil {
		writeFault(w, err)
		return
	}
	secs, err := h.b.Data(r.Context(), name, dq.start, dq.n, dq.g, dq.wait)
	if err != nil {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return // the client left
		}
		writeFault(w, err)
		return
	}
	out := make([]intervalJSON, 0, len(secs))
	for _, s := range secs {
		out = append(out, showInterval(s, dq.g, len(d.Breakdowns)))
	}
	if dq.columns {
		writeColumns(w, dq.g, len(d.Breakdowns), out)
		return
	}
	if dq.n == 1 {
		var one *intervalJSON
		if len(out) > 0 {
			one = &out[0]
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": one})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// showInterval makes the API's view of one interval of a dataset with
// nbreak breakdowns.
func showInterval(s analytics.Second, g analytics.Granularity, nbreak int) intervalJSON {
	per := int64(g.Width() / time.Second)
	iv := intervalJSON{Sample: s.Time.Unix() / per, StartTime: s.Time.UTC().Format(ApplianceTime), Samples: s.Samples}
	all := make([][]analytics.Bucket, 0, len(s.Rows))
	keys := make([]keyJSON, 0, len(s.Rows))
	// A row without a key beside keyed ones is the total, given where the
	// rows do not add up (a gauge by CPU); otherwise the total is their sum.
	var total *analytics.Row
	if nbreak > 0 {
		for i := range s.Rows {
			if len(s.Rows[i].Key) == 0 {
				total = &s.Rows[i]
			}
		}
	}
	if total != nil {
		iv.Data.Value = total.Value
		all = append(all, total.Buckets)
	}
	for _, row := range s.Rows {
		if total == nil {
			iv.Data.Value += row.Value
			all = append(all, row.Buckets)
		}
		if len(row.Key) == 0 && (nbreak == 0 || total != nil) {
			continue
		}
		k := keyJSON{Key: strings.Join(row.Key, ","), Value: row.Value, Buckets: row.Buckets}
		if len(row.Key) > 1 {
			k.Keys = row.Key
		}
		keys = append(keys, k)
	}
	if nbreak > 0 || len(keys) > 0 {
		iv.Data.Data = &keys
	}
	slices.SortStableFunc(keys, func(a, b keyJSON) int {
		if a.Value != b.Value {
			if a.Value > b.Value {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	iv.Data.Buckets = sumBuckets(all)
	return iv
}

// sumBuckets adds distributions bucket by bucket (by range: buckets of
// one range add up), ordered by range. It sorts rather than searching
// the sum for each bucket: a breakdown's interval holds one distribution
// a key, of tens of buckets each.
func sumBuckets(all [][]analytics.Bucket) []analytics.Bucket {
	n := 0
	for _, bs := range all {
		n += len(bs)
	}
	if n == 0 {
		return nil
	}
	out := make([]analytics.Bucket, 0, n)
	for _, bs := range all {
		out = append(out, bs...)
	}
	slices.SortStableFunc(out, func(a, b analytics.Bucket) int {
		if a.Min != b.Min {
			return cmpInt(a.Min, b.Min)
		}
		return cmpInt(int64(a.Max), int64(b.Max))
	})
	w := 0
	for _, b := range out {
		if w > 0 && out[w-1].Min == b.Min && out[w-1].Max == b.Max {
			out[w-1].Count += b.Count
			continue
		}
		out[w] = b
		w++
	}
	return out[:w]
}

// pruneArgs reads a prune's granularity and endtime (or before).
func pruneArgs(q url.Values) (analytics.Granularity, time.Time, error) {
	if q.Get("granularity") == "" {
		return "", time.Time{}, missingArg("granularity (second, minute or hour) is required")
	}
	g, err := granularity(q)
	if err != nil {
		return "", time.Time{}, err
	}
	end := q.Get("endtime")
	if end == "" {
		end = q.Get("before")
	}
	if end == "" {
		return "", time.Time{}, missingArg("endtime is required: data collected before it is discarded")
	}
	t, err := ParseTime(end)
	return g, t, err
}

// pruneAll serves DELETE /datasets/data: every dataset's data of a
// granularity older than endtime is discarded.
func (h *Handler) pruneAll(w http.ResponseWriter, r *http.Request) {
	g, before, err := pruneArgs(r.URL.Query())
	if err == nil {
		err = h.b.Prune(g, before)
	}
	if err != nil {
		writeFault(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// DatasetPruner is what a backend implements to prune one dataset's data
// (the appliance's DELETE /datasets/NAME/data); without it, that route
// answers 501 and DELETE /datasets/data prunes every dataset.
type DatasetPruner interface {
	PruneDataset(name string, g analytics.Granularity, before time.Time) error
}

// pruneDataset serves DELETE /datasets/NAME/data.
func (h *Handler) pruneDataset(w http.ResponseWriter, r *http.Request, name string) {
	g, before, err := pruneArgs(r.URL.Query())
	if err != nil {
		writeFault(w, err)
		return
	}
	p, ok := h.b.(DatasetPruner)
	if !ok {
		writeFault(w, errorf(http.StatusNotImplemented, "this agent prunes all datasets at once: DELETE %s/datasets/data?granularity=%s&endtime=T", Prefix, g))
		return
	}
	if err := p.PruneDataset(name, g, before); err != nil {
		writeFault(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
