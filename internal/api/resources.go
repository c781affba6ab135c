package api

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sonde-trace/sonde/docs/api"
	"github.com/sonde-trace/sonde/internal/analytics"
)

// methodJSON describes one method of the service, as the appliance's
// service listing does.
type methodJSON struct {
	Verb        string `json:"verb"`
	Path        string `json:"path"`
	Description string `json:"description"`
}

// serviceMethods is the service's index.
var serviceMethods = []methodJSON{
	{"GET", "/datasets", "list datasets"},
	{"POST", "/datasets", "create (and start) a dataset: {\"statistic\": NAME}"},
	{"GET", "/datasets/<dataset>", "get a dataset"},
	{"PUT", "/datasets/<dataset>", "suspend or resume a dataset: {\"suspended\": true|false}"},
	{"PUT", "/datasets/<dataset>/save", "archive a dataset to disk"},
	{"DELETE", "/datasets/<dataset>", "destroy a dataset"},
	{"GET", "/datasets/<dataset>/data", "get a dataset's data: ?start=now|T&seconds=N&granularity=second|minute|hour"},
	{"DELETE", "/datasets/<dataset>/data", "prune a dataset's data: ?granularity=G&endtime=T"},
	{"DELETE", "/datasets/data", "prune every dataset's data: ?granularity=G&endtime=T"},
	{"GET", "/statistics", "list the statistics catalogue"},
	{"GET", "/statistics/<statistic>", "get a statistic"},
	{"POST", "/statistics", "define a statistic from D: {\"name\", \"description\", \"source\"}"},
	{"GET", "/worksheets", "list worksheets"},
	{"POST", "/worksheets", "create a worksheet"},
	{"GET", "/worksheets/<worksheet>", "get a worksheet"},
	{"PUT", "/worksheets/<worksheet>", "modify a worksheet"},
	{"DELETE", "/worksheets/<worksheet>", "destroy a worksheet"},
	{"PUT", "/worksheets/<worksheet>/suspend", "suspend all the worksheet's datasets"},
	{"PUT", "/worksheets/<worksheet>/resume", "resume all the worksheet's datasets"},
	{"GET", "/events", "list the agent's events: ?dataset=NAME&since=T"},
	{"GET", "/openapi.yaml", "this service's OpenAPI 3 document"},
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"service": map[string]any{
		"name": "analytics", "version": "1.0", "href": Prefix, "methods": serviceMethods,
	}})
}

func (h *Handler) openapi(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(api.OpenAPI)
}

// statisticJSON is a statistic with its href.
type statisticJSON struct {
	analytics.Statistic
	Href string `json:"href"`
}

func showStatistic(s analytics.Statistic) statisticJSON {
	s.Breakdowns = nonNil(s.Breakdowns)
	return statisticJSON{s, Prefix + "/statistics/" + escape(s.Name)}
}

// routeStatistics serves /statistics and /statistics/NAME.
func (h *Handler) routeStatistics(w http.ResponseWriter, r *http.Request, item string) {
	if item == "" {
		methods{http.MethodGet: h.listStatistics, http.MethodPost: h.defineStatistic}.serve(w, r)
		return
	}
	name, err := unescape(item)
	if err != nil {
		writeFault(w, err)
		return
	}
	methods{http.MethodGet: func(w http.ResponseWriter, r *http.Request) {
		for _, s := range h.b.Statistics() {
			if s.Name == name {
				writeJSON(w, http.StatusOK, map[string]any{"statistic": showStatistic(s)})
				return
			}
		}
		writeFault(w, errorf(http.StatusNotFound, "no statistic %q", name))
	}}.serve(w, r)
}

func (h *Handler) listStatistics(w http.ResponseWriter, r *http.Request) {
	stats := h.b.Statistics()
	slices.SortFunc(stats, func(a, b analytics.Statistic) int { return strings.Compare(a.Name, b.Name) })
	out := []statisticJSON{}
	for _, s := range stats {
		out = append(out, showStatistic(s))
	}
	writeJSON(w, http.StatusOK, map[string]any{"statistics": out})
}

// defineInput is POST /statistics' body: a user statistic from D.
type defineInput struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

func (h *Handler) defineStatistic(w http.ResponseWriter, r *http.Request) {
	var in defineInput
	if err := decode(r, &in); err != nil {
		writeFault(w, err)
		return
	}
	if in.Name == "" || in.Source == "" {
		writeFault(w, missingArg(`"name" and "source" (D with one aggregation) are required`))
		return
	}
	s, err := h.b.DefineStatistic(in.Name, in.Description, in.Source)
	if err != nil {
		writeFault(w, err)
		return
	}
	st := showStatistic(s)
	w.Header().Set("Location", st.Href)
	writeJSON(w, http.StatusCreated, map[string]any{"statistic": st})
}

// events serves GET /events, optionally of one dataset or since a time.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var since time.Time
	if s := q.Get("since"); s != "" {
		t, err := ParseTime(s)
		if err != nil {
			writeFault(w, err)
			return
		}
		since = t
	}
	out := []analytics.Event{}
	for _, e := range h.b.Events() {
		if ds := q.Get("dataset"); ds != "" && e.Dataset != ds {
			continue
		}
		if e.Time.Before(since) {
			continue
		}
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"events": out})
}
