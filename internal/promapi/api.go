// Package promapi is sonded's Prometheus-compatible query API:
// /api/v1/query, query_range, series, labels, label/NAME/values and
// metadata, evaluated by Prometheus's own PromQL engine (the
// github.com/prometheus/prometheus/promql package, used as a library) over
// a storage.Queryable that reads the agent's store.
//
// The series are those sonded writes to a receiver (package remotewrite):
// every dataset's family as /metrics names it (package promexp), with the
// host, instance and job labels, and a sample at the end of every second.
// A counter's sample at T is the sum of the dataset's seconds from its
// creation to T (read from the coarsest tiers that hold whole intervals,
// then per second); a gauge's is the level of the second before T; a
// distribution is classic buckets (_bucket, _count, _sum) and, when exact,
// a native histogram of schema 0. So Grafana's Prometheus data source
// reads one host's per-second data straight from sonded, and the same
// queries give the same answers here and in a Prometheus sonded writes
// to (docs/prometheus.md says when they can differ).
//
// The package is the only one of sonded that imports the PromQL engine:
// docs/prometheus.md has what the dependency costs.
package promapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/sonde-trace/sonde/internal/analytics"
	"github.com/sonde-trace/sonde/internal/promexp"
)

// Prefix is where the API is mounted.
const Prefix = "/api/v1"

// Config configures the API; zero values take the defaults.
type Config struct {
	// Host and Job are the host/instance and job labels of every series
	// (default: the host's name, "sonded"), as remote-write sends them.
	Host, Job string
	// MaxSeries per dataset, as promexp's.
	MaxSeries int
	// Timeout of a query (default 2 minutes); MaxSamples it may load
	// (default 50 million).
	Timeout    time.Duration
	MaxSamples int
}

// API answers Prometheus's HTTP query API from a source (the agent).
type API struct {
	src    promexp.Source
	cfg    Config
	engine *promql.Engine
	parser parser.Parser
}

// New makes the API over src.
func New(src promexp.Source, cfg Config) (*API, error) {
	if cfg.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("query API: the host label: %w", err)
		}
		cfg.Host = h
	}
	if cfg.Job == "" {
		cfg.Job = "sonded"
	}
	if cfg.MaxSeries <= 1 {
		cfg.MaxSeries = promexp.DefaultMaxSeries
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.MaxSamples <= 0 {
		cfg.MaxSamples = 50000000
	}
	p := parser.NewParser(parser.Options{})
	eng := promql.NewEngine(promql.EngineOpts{
		Logger:                   slog.New(slog.DiscardHandler),
		MaxSamples:               cfg.MaxSamples,
		Timeout:                  cfg.Timeout,
		LookbackDelta:            5 * time.Minute,
		EnableAtModifier:         true,
		EnableNegativeOffset:     true,
		NoStepSubqueryIntervalFn: func(int64) int64 { return time.Minute.Milliseconds() },
		Parser:                   p,
	})
	return &API{src: src, cfg: cfg, engine: eng, parser: p}, nil
}

// Queryable is the storage the engine reads: the agent's datasets.
func (a *API) Queryable() storage.Queryable { return queryable{a} }

// Handler serves the API under Prefix.
func (a *API) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(Prefix+"/query", a.query)
	mux.HandleFunc(Prefix+"/query_range", a.queryRange)
	mux.HandleFunc(Prefix+"/series", a.series)
	mux.HandleFunc(Prefix+"/labels", a.labels)
	mux.HandleFunc(Prefix+"/label/{name}/values", a.labelValues)
	mux.HandleFunc(Prefix+"/metadata", a.metadata)
	mux.HandleFunc(Prefix+"/status/buildinfo", a.buildinfo)
	mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "not_found", fmt.Errorf("%s is not served by sonded", r.URL.Path))
	})
	return mux
}

// apiError is an error with its Prometheus errorType and status.
type apiError struct {
	status int
	typ    string
	err    error
}

func (e *apiError) Error() string { return e.err.Error() }

func badData(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, "bad_data", fmt.Errorf(format, args...)}
}

func respond(w http.ResponseWriter, data any, warnings annotations.Annotations) {
	body := map[string]any{"status": "success", "data": data}
	if len(warnings) > 0 {
		var ws []string
		for _, e := range warnings {
			ws = append(ws, e.Error())
		}
		sort.Strings(ws)
		body["warnings"] = ws
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func fail(w http.ResponseWriter, status int, typ string, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "error", "errorType": typ, "error": err.Error()})
}

func failErr(w http.ResponseWriter, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		fail(w, ae.status, ae.typ, ae.err)
	case errors.Is(err, context.Canceled):
		fail(w, 499, "canceled", err)
	case errors.As(err, new(promql.ErrQueryTimeout)), errors.Is(err, context.DeadlineExceeded):
		fail(w, http.StatusServiceUnavailable, "timeout", err)
	case errors.As(err, new(promql.ErrStorage)):
		fail(w, http.StatusInternalServerError, "internal", err)
	default:
		fail(w, http.StatusUnprocessableEntity, "execution", err)
	}
}

// parseTime reads a Prometheus API time: Unix seconds, or RFC 3339.
func parseTime(s string, def time.Time) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1000))*int64(time.Millisecond)), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, badData("cannot parse %q to a valid timestamp", s)
}

// parseDuration reads seconds or a Prometheus duration (5m).
func parseDuration(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		d := f * float64(time.Second)
		if d >= float64(math.MaxInt64) || d <= 0 {
			return 0, badData("cannot parse %q to a valid duration", s)
		}
		return time.Duration(d), nil
	}
	if d, err := model.ParseDuration(s); err == nil && d > 0 {
		return time.Duration(d), nil
	}
	return 0, badData("cannot parse %q to a valid duration", s)
}

func (a *API) context(r *http.Request) (context.Context, context.CancelFunc, error) {
	timeout := a.cfg.Timeout
	if s := r.FormValue("timeout"); s != "" {
		d, err := parseDuration(s)
		if err != nil {
			return nil, nil, err
		}
		timeout = min(timeout, d)
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	return ctx, cancel, nil
}

type queryData struct {
	ResultType parser.ValueType `json:"resultType"`
	Result     parser.Value     `json:"result"`
}

func (a *API) query(w http.ResponseWriter, r *http.Request) {
	ts, err := parseTime(r.FormValue("time"), time.Now())
	if err != nil {
		failErr(w, err)
		return
	}
	a.run(w, r, func(ctx context.Context) (promql.Query, error) {
		return a.engine.NewInstantQuery(ctx, a.Queryable(), nil, r.FormValue("query"), ts)
	})
}

func (a *API) queryRange(w http.ResponseWriter, r *http.Request) {
	start, err := parseTime(r.FormValue("start"), time.Time{})
	if err == nil && start.IsZero() {
		err = badData("start: a time is needed")
	}
	if err != nil {
		failErr(w, err)
		return
	}
	end, err := parseTime(r.FormValue("end"), time.Time{})
	if err == nil && end.IsZero() {
		err = badData("end: a time is needed")
	}
	if err == nil && end.Before(start) {
		err = badData("end timestamp must not be before start time")
	}
	if err != nil {
		failErr(w, err)
		return
	}
	step, err := parseDuration(r.FormValue("step"))
	if err == nil && end.Sub(start)/step > 11000 {
		err = badData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)")
	}
	if err != nil {
		failErr(w, err)
		return
	}
	a.run(w, r, func(ctx context.Context) (promql.Query, error) {
		return a.engine.NewRangeQuery(ctx, a.Queryable(), nil, r.FormValue("query"), start, end, step)
	})
}

// run makes a query under the request's context (its timeout) and answers
// its result, or the error.
func (a *API) run(w http.ResponseWriter, r *http.Request, query func(context.Context) (promql.Query, error)) {
	ctx, cancel, err := a.context(r)
	if err != nil {
		failErr(w, err)
		return
	}
	defer cancel()
	q, err := query(ctx)
	if err != nil {
		failErr(w, badData("%w", err))
		return
	}
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		failErr(w, res.Err)
		return
	}
	respond(w, queryData{ResultType: res.Value.Type(), Result: res.Value}, res.Warnings)
}

// selectors reads match[] (required when need) and the time range.
func (a *API) selectors(r *http.Request, need bool) ([][]*labels.Matcher, time.Time, time.Time, error) {
	if err := r.ParseForm(); err != nil {
		return nil, time.Time{}, time.Time{}, badData("%w", err)
	}
	end, err := parseTime(r.Form.Get("end"), time.Now())
	if err != nil {
		return nil, time.Time{}, time.Time{}, err
	}
	// without a start, the last hour: every sample back to a dataset's
	// creation would be built
	start, err := parseTime(r.Form.Get("start"), end.Add(-time.Hour))
	if err != nil {
		return nil, time.Time{}, time.Time{}, err
	}
	ms := r.Form["match[]"]
	if len(ms) == 0 {
		if need {
			return nil, time.Time{}, time.Time{}, badData("no match[] parameter provided")
		}
		return [][]*labels.Matcher{nil}, start, end, nil
	}
	sets, err := a.parser.ParseMetricSelectors(ms)
	if err != nil {
		return nil, time.Time{}, time.Time{}, badData("%w", err)
	}
	return sets, start, end, nil
}

func (a *API) series(w http.ResponseWriter, r *http.Request) {
	sets, start, end, err := a.selectors(r, true)
	if err != nil {
		failErr(w, err)
		return
	}
	q, _ := a.Queryable().Querier(start.UnixMilli(), end.UnixMilli())
	seen := map[string]bool{}
	out := []labels.Labels{}
	for _, ms := range sets {
		set := q.Select(r.Context(), true, nil, ms...)
		for set.Next() {
			ls := set.At().Labels()
			if !seen[ls.String()] {
				seen[ls.String()] = true
				out = append(out, ls)
			}
		}
		if err := set.Err(); err != nil {
			failErr(w, &apiError{http.StatusInternalServerError, "internal", err})
			return
		}
	}
	sort.Slice(out, func(i, j int) bool { return labels.Compare(out[i], out[j]) < 0 })
	respond(w, out, nil)
}

func (a *API) labels(w http.ResponseWriter, r *http.Request) {
	a.labelSet(w, r, func(q storage.Querier, ms []*labels.Matcher) ([]string, error) {
		names, _, err := q.LabelNames(r.Context(), nil, ms...)
		return names, err
	})
}

func (a *API) labelValues(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if strings.HasPrefix(name, "U__") {
		name = model.UnescapeName(name, model.ValueEncodingEscaping)
	}
	if !model.UTF8Validation.IsValidLabelName(name) {
		failErr(w, badData("invalid label name: %q", name))
		return
	}
	a.labelSet(w, r, func(q storage.Querier, ms []*labels.Matcher) ([]string, error) {
		vals, _, err := q.LabelValues(r.Context(), name, nil, ms...)
		return vals, err
	})
}

// labelSet answers labels and label values: the union over match[].
func (a *API) labelSet(w http.ResponseWriter, r *http.Request, get func(storage.Querier, []*labels.Matcher) ([]string, error)) {
	sets, start, end, err := a.selectors(r, false)
	if err != nil {
		failErr(w, err)
		return
	}
	q, _ := a.Queryable().Querier(start.UnixMilli(), end.UnixMilli())
	seen := map[string]bool{}
	for _, ms := range sets {
		vals, err := get(q, ms)
		if err != nil {
			failErr(w, &apiError{http.StatusInternalServerError, "internal", err})
			return
		}
		for _, v := range vals {
			seen[v] = true
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	respond(w, out, nil)
}

type metadata struct {
	Type string `json:"type"`
	Help string `json:"help"`
	Unit string `json:"unit"`
}

// metadata describes every family of the catalogue's statistics.
func (a *API) metadata(w http.ResponseWriter, r *http.Request) {
	metric := r.FormValue("metric")
	out := map[string][]metadata{}
	for _, st := range a.src.Statistics() {
		name, _ := promexp.MetricName(st)
		typ := map[analytics.Kind]string{analytics.Counter: "counter", analytics.Gauge: "gauge", analytics.Distribution: "histogram"}[st.Kind]
		help := st.Description
		if st.Unit != "" {
			help += " (" + st.Unit + ")"
		}
		out[name] = []metadata{{Type: typ, Help: help}}
	}
	out[promexp.FoldedName] = []metadata{{Type: "counter", Help: "Rows (a key in a second) of a dataset summed into its \"other\" series, past the limit of series per dataset."}}
	if metric != "" {
		if m, ok := out[metric]; ok {
			out = map[string][]metadata{metric: m}
		} else {
			out = map[string][]metadata{}
		}
	}
	respond(w, out, nil)
}

// buildinfo says what answers: Grafana asks.
func (a *API) buildinfo(w http.ResponseWriter, r *http.Request) {
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			// module v0.315.1 is Prometheus 3.15.1
			if m.Path == "github.com/prometheus/prometheus" {
				if v, ok := strings.CutPrefix(m.Version, "v0."); ok && len(v) > 3 {
					version = v[:1] + "." + strings.TrimLeft(v[1:], "0")
				}
			}
		}
	}
	respond(w, map[string]string{"version": version, "application": "sonded (Prometheus's PromQL engine)", "revision": "", "branch": "", "buildUser": "", "buildDate": "", "goVersion": runtime.Version()}, nil)
}
